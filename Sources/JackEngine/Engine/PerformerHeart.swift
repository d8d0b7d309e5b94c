import Control

/// One performer's heart as the process thread keeps it: their heartbeat clock (the exact
/// contract, from their own tempo messages) and their explicit beats (`/pulse/beat`), with the
/// spacing of the last two (the step of pulse voices those beats fire).
struct PerformerHeart: BitwiseCopyable {
    var clock: HeartbeatClock
    var explicitBeats: Int64 = 0
    var lastExplicitBeatFrame: Int64?
    var explicitBeatFrames: Double

    init(sampleRate: Int) {
        clock = HeartbeatClock(sampleRate: sampleRate)
        explicitBeatFrames = Double(sampleRate)
    }
}
