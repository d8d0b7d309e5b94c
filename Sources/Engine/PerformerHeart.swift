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
    /// Its intervals' variability and the breathing in them (modulation sources, the status).
    let variability: HeartRateVariability
    /// Whether a source gave intervals of its own (a strap's RR, the ECG's R-peaks, `/pulse/rr`):
    /// then those count for the variability, not the spacing of its explicit beats.
    var intervalsFromSensor = false
    /// The frame its last tempo, beat or interval came at (−1: none), and whether its data is
    /// present (false during a dropout, since `quietSince`).
    var lastDataFrame: Int64 = -1
    var present = true
    var quietSince: Int64 = 0

    init(sampleRate: Int, variabilityWindow: Double = 30) {
        clock = HeartbeatClock(sampleRate: sampleRate)
        explicitBeatFrames = Double(sampleRate)
        variability = HeartRateVariability(window: variabilityWindow)
    }
}
