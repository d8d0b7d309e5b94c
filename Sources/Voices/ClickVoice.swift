import Realtime
/// A unit impulse (1.0 × velocity) on both channels at the trigger frame: the metronome, and
/// the measuring tool that shows exactly where the scheduler fired.
public final class ClickVoice: Voice {
    /// Triggers waiting for their frame; a fixed pool so triggering never allocates.
    private let pending = FixedBuffer<(offset: Int, velocity: Float)>(capacity: ClickVoice.maxPending, repeating: (0, 0))
    private var pendingCount = 0
    public static let maxPending = 64

    public init() {}

    public func prepare(sampleRate: Int, maxFrames: Int) {}

    /// Real-time safe. Beyond `maxPending` waiting clicks, the newest is dropped.
    public func trigger(atFrame offset: Int, velocity: Float) {
        guard pendingCount < Self.maxPending else { return }
        pending[pendingCount] = (max(0, offset), velocity)
        pendingCount += 1
    }

    /// Real-time safe.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        var kept = 0
        for index in 0..<pendingCount {
            let click = pending[index]
            if click.offset < frames {
                left[click.offset] += click.velocity
                right[click.offset] += click.velocity
            } else {
                pending[kept] = (click.offset - frames, click.velocity)
                kept += 1
            }
        }
        pendingCount = kept
    }

    /// Real-time safe.
    public func silence() { pendingCount = 0 }

    /// Real-time safe.
    public var isSounding: Bool { pendingCount > 0 }
}
