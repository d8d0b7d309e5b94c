/// A report that a voice fired, sent out of the process thread through a ring
/// (for `render --events-out`, and the control thread's view of what played).
public struct FiredVoice: Sendable, Equatable, BitwiseCopyable {
    public var frame: Int64
    public var voice: Int32
    public var velocity: Float
}
