import Plugins
import Realtime

/// The grid heart's time as the hosted plugins hear it (`PluginTime`, LV2's `time:Position`):
/// its beats and tempo — the grid pulsejack's clicks, `grid_out` and MIDI clock follow, however
/// it is led (the heart, the transport, Ableton Link) — in bars of `beatsPerBar` (Link's
/// quantum with `--link`, else 4), rolling while the grid has a tempo and, where the JACK
/// transport is followed, while it rolls.
///
/// A position is recorded where something changes: the block that starts the engine, each
/// tempo change at its frame, the grid's first tempo, a jump of its beats (Link's alignment,
/// frames JACK ran without us), the transport's start and stop. Between them the phase moves on
/// exactly at the tempo told, so a plugin counting frames stays on the grid. The process
/// thread's alone.
package final class PluginTimeline {
    package let time = PluginTime()
    private let beatsPerBar: Double
    private let sampleRate: Int
    /// Whether the transport rolls (the backend's, where it follows the transport).
    package var transportRolls = true
    /// What was last told: whether the grid ran, its tempo in phase ticks a frame, its phase at
    /// `frame`, and whether the transport rolled. Nil: nothing, or something the phase cannot
    /// show moved the plugins' time (frames skipped).
    private var told: (running: Bool, ticksPerFrame: Int64, phase: Int128, frame: Int64, rolling: Bool)?
    private var blockStart: Int64 = 0
    /// Positions recorded so far (tests).
    package private(set) var changes = 0

    package init(sampleRate: Int, beatsPerBar: Double) {
        self.sampleRate = sampleRate
        self.beatsPerBar = beatsPerBar > 0 && beatsPerBar.isFinite ? beatsPerBar : 4
    }

    /// Real-time safe. A block begins at `frame`: where the grid stands, and a change if it moved
    /// since the last block in a way the phase does not show.
    package func beginBlock(_ clock: HeartbeatClock, at frame: Int64) {
        blockStart = frame
        time.beginBlock(position(clock, at: frame))
        check(clock, at: frame)
    }

    /// Real-time safe. Records a position at `frame` (within the block) when the grid or the
    /// transport changed since the last told: anything but the phase moving on at its tempo.
    package func check(_ clock: HeartbeatClock, at frame: Int64) {
        let running = clock.isRunning, ticksPerFrame = clock.phaseTicksPerFrame
        let phase = running ? clock.phaseTicks(atFrame: frame) : 0
        if let told, told.running == running, told.ticksPerFrame == ticksPerFrame, told.rolling == transportRolls,
           !running || told.phase + Int128(frame - told.frame) * Int128(ticksPerFrame) == phase {
            return
        }
        told = (running, ticksPerFrame, phase, frame, transportRolls)
        changes &+= 1
        time.record(position(clock, at: frame), atOffset: Int(frame - blockStart))
    }

    /// Real-time safe. The plugins' time moved in a way the phase does not show: told again at
    /// the next check.
    package func resync() { told = nil }

    /// Real-time safe. The grid at `frame`: its beat and tempo (the tempo as the clock counts
    /// it, in micro-BPM), or beat 0 at 120 BPM, standing, before it has one.
    private func position(_ clock: HeartbeatClock, at frame: Int64) -> TimePosition {
        guard let beat = clock.beat(atFrame: frame) else {
            var idle = PluginTime.idle
            idle.frame = frame
            idle.beatsPerBar = beatsPerBar
            return idle
        }
        let bpm = Double(clock.phaseTicksPerFrame) / 1_000_000
        return TimePosition(frame: frame, beat: beat, beatsPerMinute: bpm, beatsPerBar: beatsPerBar, speed: transportRolls ? 1 : 0,
                            beatsPerFrame: bpm / (60 * Double(sampleRate)))
    }
}
