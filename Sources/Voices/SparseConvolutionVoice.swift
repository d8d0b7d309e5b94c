/// The heartbeat as an impulse train convolved with a recorded clip, computed sparsely: each
/// impulse adds a scaled, shifted copy of the clip. Exactly a direct convolution of the train
/// with the clip, at a cost proportional to the copies in flight, not to the clip's length.
public final class SparseConvolutionVoice: Voice {
    public let shape: HeartbeatShape
    /// The copies; its playheads are the impulses in flight.
    public let copies: SampleVoice

    /// Copies of the clip in flight at once unless a preset says otherwise (the `convolution`
    /// kind's `polyphony` default).
    public static let defaultCopies = 64

    /// Control thread. `maxCopies` bounds the impulses in flight (the oldest is
    /// replaced beyond it): a 10 s clip at 180 BPM with lub-dub needs 60.
    public init(clip: SampleBuffer, shape: HeartbeatShape, maxCopies: Int = defaultCopies) {
        self.shape = shape
        copies = SampleVoice(sample: clip, maxPolyphony: maxCopies)
    }

    public func prepare(sampleRate: Int, maxFrames: Int) { copies.prepare(sampleRate: sampleRate, maxFrames: maxFrames) }

    /// Real-time safe.
    public func trigger(atFrame offset: Int, velocity: Float) {
        copies.trigger(atFrame: offset, velocity: velocity)
        if case .lubDub(let delay, let gain) = shape {
            copies.trigger(atFrame: offset + delay, velocity: velocity * gain)
        }
    }

    /// Real-time safe.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        copies.render(left: left, right: right, frames: frames)
    }

    /// Real-time safe.
    public func silence() { copies.silence() }

    /// Real-time safe.
    public var isSounding: Bool { copies.isSounding }

    /// Real-time safe.
    public func choke() { copies.choke() }
}
