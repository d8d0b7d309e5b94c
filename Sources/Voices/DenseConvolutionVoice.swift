import CZitaConvolver
import Realtime

/// Audio input (a contact microphone, a pulse-wave signal, another client) convolved with a clip
/// by zita-convolver's non-uniform partitioned FFT convolution. The smallest partition is the
/// engine's block, so it adds no latency; the larger partitions run on zita's worker threads.
public final class DenseConvolutionVoice: InputVoice, ClipSwapping {
    public let quantum: Int
    /// Offline renders wait for the workers each block (deterministic); live blocks never wait,
    /// and a late partition is counted instead.
    public let waitsForWorkers: Bool
    private var convolver: OpaquePointer
    public private(set) var lateBlocks = 0
    /// A replacement being faded in (a swap), and the frames of the crossfade done so far.
    private var incoming: Unmanaged<DenseConvolutionVoice>?
    private var faded = 0
    /// A finished swap's leftover (holding the old convolver), waiting to be retired.
    private var leftover: Unmanaged<AnyObject>?
    /// Length of a swap's crossfade.
    public let crossfadeFrames: Int
    /// The incoming clip's output during a swap, left then right (a quantum each).
    private let fades: FixedBuffer<Float>
    private var fadeLeft: UnsafeMutablePointer<Float> { fades.pointer }
    private var fadeRight: UnsafeMutablePointer<Float> { fades.pointer + quantum }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Control thread. Partitions the clip and starts the workers. `quantum` is the
    /// engine's block (64 … 8192 frames, a power of two).
    public init(clip: SampleBuffer, quantum: Int, waitsForWorkers: Bool) throws {
        guard quantum >= 64, quantum <= 8192, quantum & (quantum - 1) == 0 else {
            throw Failure(description: "dense convolution needs a period of 64 to 8192 frames, a power of two (this one is \(quantum))")
        }
        self.quantum = quantum
        self.waitsForWorkers = waitsForWorkers
        crossfadeFrames = max(quantum, 2048)
        fades = FixedBuffer(capacity: 2 * quantum, repeating: 0)
        var error: Int32 = 0
        guard let convolver = pj_convolver_create(2, UInt32(max(clip.frameCount, quantum)), UInt32(quantum), &error) else {
            throw Failure(description: "zita-convolver refused the configuration (error \(error))")
        }
        self.convolver = convolver
        for (channel, data) in [clip.left, clip.right].enumerated() {
            let status = pj_convolver_set_impulse(convolver, UInt32(channel), data.baseAddress, UInt32(clip.frameCount))
            guard status == 0 else {
                pj_convolver_destroy(convolver)
                throw Failure(description: "zita-convolver refused the clip (error \(status))")
            }
        }
        // zita-convolver's worker threads (one per partition level) say what they are in `top -H`.
        guard ThreadName.naming("pj-convolver", threadsStartedBy: { pj_convolver_start(convolver) }) == 0 else {
            pj_convolver_destroy(convolver)
            throw Failure(description: "zita-convolver could not start its worker threads")
        }
    }

    /// Control thread. After the engine stopped (or retired by a swap).
    deinit {
        pj_convolver_destroy(convolver)
        incoming?.release()
        leftover?.release()
    }

    /// Real-time safe. `clip` must be a prepared `DenseConvolutionVoice` with the same quantum:
    /// it is fed the same input and faded in over `crossfadeFrames`, then takes over.
    public func swapClip(_ clip: Unmanaged<AnyObject>, retire: (Unmanaged<AnyObject>) -> Void) -> Bool {
        reclaim(retire: retire)
        guard incoming == nil, leftover == nil,
              let replacement = clip.takeUnretainedValue() as? DenseConvolutionVoice, replacement.quantum == quantum
        else { return false }
        incoming = Unmanaged.passUnretained(replacement)
        faded = 0
        return true
    }

    public func reclaim(retire: (Unmanaged<AnyObject>) -> Void) {
        if let done = leftover {
            leftover = nil
            retire(done)
        }
    }

    public func prepare(sampleRate: Int, maxFrames: Int) {}
    public func trigger(atFrame offset: Int, velocity: Float) {}
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {}
    public func silence() {}

    /// Real-time safe.
    @inline(__always)
    private func load(_ input: UnsafePointer<Float>, channel: UInt32, count: Int) {
        let buffer = pj_convolver_input(convolver, channel)!
        buffer.update(from: input, count: count)
        if count < quantum { (buffer + count).update(repeating: 0, count: quantum - count) }
    }

    /// Real-time safe. `frames` is at most `quantum`; a shorter block is zero-padded.
    public func process(inputLeft: UnsafePointer<Float>, inputRight: UnsafePointer<Float>,
                        left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        let count = min(frames, quantum)
        load(inputLeft, channel: 0, count: count)
        load(inputRight, channel: 1, count: count)
        if pj_convolver_process(convolver, waitsForWorkers ? 1 : 0) & 0xFFFF != 0 { lateBlocks += 1 }
        let outLeft = pj_convolver_output(convolver, 0)!, outRight = pj_convolver_output(convolver, 1)!
        guard let replacement = incoming?.takeUnretainedValue() else {
            for frame in 0..<count {
                left[frame] += outLeft[frame]
                right[frame] += outRight[frame]
            }
            return
        }
        // A swap under way: both hear the input; the old fades out as the new fades in.
        fadeLeft.update(repeating: 0, count: count)
        fadeRight.update(repeating: 0, count: count)
        replacement.process(inputLeft: inputLeft, inputRight: inputRight, left: fadeLeft, right: fadeRight, frames: count)
        Crossfade.mix(oldLeft: outLeft, oldRight: outRight, newLeft: fadeLeft, newRight: fadeRight, into: left, right, frames: count,
                      done: faded, length: crossfadeFrames)
        faded += count
        if faded >= crossfadeFrames {
            // The replacement's convolver becomes ours; ours leaves with the replacement object.
            swap(&convolver, &replacement.convolver)
            leftover = Unmanaged.passUnretained(replacement)
            incoming = nil
        }
    }
}
