/// The shape of one heartbeat as an impulse: a single impulse, or a "lub-dub" pair whose second
/// impulse follows at `delayFrames` with `gain` relative to the first.
public enum HeartbeatShape: Sendable, Equatable {
    case single
    case lubDub(delayFrames: Int, gain: Float)
}
