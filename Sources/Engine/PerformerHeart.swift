import Realtime

/// One performer's heart as the process thread keeps it: their heartbeat clock (the exact
/// contract, from their own tempo messages) and their explicit beats (`/pulse/beat`), with the
/// spacing of the last two (the step of pulse voices those beats fire). A class, made before
/// activation: the process thread changes it in place.
package final class PerformerHeart {
    var clock: HeartbeatClock
    var explicitBeats: Int64 = 0
    var lastExplicitBeatFrame: Int64 = -1
    var explicitBeatFrames: Double
    /// The last beat's frame (clock or explicit), −1 before the first: `together` voices pair them.
    var lastBeat: Int64 = -1
    /// The level of this heart's voices: 1, or fading toward 0 during a dropout whose preset
    /// action is "fade" (and back when data returns).
    var level: Float = 1
    var levelTarget: Float = 1

    init(sampleRate: Int) {
        clock = HeartbeatClock(sampleRate: sampleRate)
        explicitBeatFrames = Double(sampleRate)
    }
}
