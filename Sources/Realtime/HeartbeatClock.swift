/// The heartbeat clock: beat phase as an exact function of frame time.
///
/// The phase starts at 0 at the first tempo update and rises at bpm/60 per second, where bpm is
/// the latest update whose frame has passed. Pulse n (of `BeatRate.pulsesPerBeat` per beat)
/// sounds at the frame nearest the exact time the phase reaches n/pulsesPerBeat; beat k is
/// pulse k·pulsesPerBeat. Everything is integer arithmetic in "ticks": a tempo is stored in
/// micro-BPM, and one beat is 60·sampleRate·10⁶ ticks, so a frame advances the phase by exactly
/// `microBPM` ticks and nothing drifts, however long it runs.
public struct HeartbeatClock: Sendable, BitwiseCopyable {

    public let sampleRate: Int
    /// Phase ticks in one pulse: 60·sampleRate·10⁶ / pulsesPerBeat.
    public let ticksPerPulse: Int64

    /// Ticks per frame (the tempo in micro-BPM); 0 before the first tempo update.
    @usableFromInline private(set) var ticksPerFrame: Int64 = 0
    /// The frame the segment below is measured from (the last tempo change or rebase).
    @usableFromInline var segmentStart: Int64 = 0
    /// Whole pulses of phase at `segmentStart`, and the ticks beyond them (0 ..< ticksPerPulse).
    @usableFromInline var pulsesAtStart: Int64 = 0
    @usableFromInline var ticksAtStart: Int64 = 0
    /// Index of the next pulse to fire.
    public internal(set) var nextPulse: Int64 = 0
    /// The next pulse's frame, fixed once the phase has passed it but its (rounded) frame has
    /// not come yet; a tempo change after the exact time must not move it.
    @usableFromInline var committedFrame: Int64?

    public private(set) var bpm: Double = 0

    public init(sampleRate: Int) {
        precondition(sampleRate > 0 && sampleRate <= 768_000, "sample rate out of range")
        self.sampleRate = sampleRate
        ticksPerPulse = 60 * Int64(sampleRate) * 1_000_000 / Int64(BeatRate.pulsesPerBeat)
    }

    @inlinable public var isRunning: Bool { ticksPerFrame > 0 }

    /// Real-time safe. Whether `bpm` is a tempo the clock accepts: finite, above 0, at most 300.
    public static func accepts(bpm: Double) -> Bool {
        bpm.isFinite && bpm > 0 && bpm <= 300 && bpm * 1_000_000 >= 0.5  // at least 1 µBPM once rounded
    }

    /// Real-time safe. Sets the tempo from `frame` on (frames must not go back in time).
    /// Returns false and keeps the last good tempo when `bpm` is not accepted.
    @discardableResult
    @_noLocks @_noAllocation
    public mutating func setTempo(bpm: Double, atFrame frame: Int64) -> Bool {
        guard Self.accepts(bpm: bpm) else { return false }
        // Rounded half away from zero (bpm > 0); `.rounded()` would use FloatingPointRoundingRule's metadata.
        let micro = Int64(bpm * 1_000_000 + 0.5)
        if ticksPerFrame == 0 {
            segmentStart = frame
            pulsesAtStart = 0
            ticksAtStart = 0
            nextPulse = 0
            committedFrame = nil
        } else {
            advance(to: frame)
        }
        ticksPerFrame = micro
        self.bpm = bpm
        return true
    }

    /// Real-time safe. Moves the segment start to `frame` at the current tempo. Changes no pulse
    /// time; keeps the integers small (the engine calls it once a period).
    @_noLocks @_noAllocation
    public mutating func advance(to frame: Int64) {
        guard ticksPerFrame > 0, frame > segmentStart else { return }
        let elapsedTicks = (frame - segmentStart) * ticksPerFrame
        if committedFrame == nil {
            let pending = pendingTicks
            if pending < elapsedTicks {
                committedFrame = segmentStart + Self.nearestFrame(ticks: pending, ticksPerFrame: ticksPerFrame)
            }
        }
        let ticks = ticksAtStart + elapsedTicks
        pulsesAtStart += ticks / ticksPerPulse
        ticksAtStart = ticks % ticksPerPulse
        segmentStart = frame
    }

    /// Real-time safe. The frame of the next pulse, or nil while no tempo is known.
    /// Inlinable: read from a class's stored clock, a call would copy the whole clock first.
    @inlinable public var nextPulseFrame: Int64? {
        guard ticksPerFrame > 0 else { return nil }
        if let committedFrame { return committedFrame }
        return segmentStart + Self.nearestFrame(ticks: max(0, pendingTicks), ticksPerFrame: ticksPerFrame)
    }

    /// Real-time safe. The next pulse as (beat, pulse within the beat).
    public var nextPulsePosition: (beat: Int64, pulse: Int) {
        let perBeat = Int64(BeatRate.pulsesPerBeat)
        return (nextPulse / perBeat, Int(nextPulse % perBeat))
    }

    /// Real-time safe. Marks the next pulse as fired.
    @_noLocks @_noAllocation
    public mutating func consumePulse() {
        nextPulse += 1
        committedFrame = nil
    }

    /// Ticks from `segmentStart` until the phase reaches pulse `nextPulse`.
    @inlinable var pendingTicks: Int64 {
        (nextPulse - pulsesAtStart) * ticksPerPulse - ticksAtStart
    }

    /// round(ticks / ticksPerFrame), halves rounded up, for ticks ≥ 0.
    @inlinable @inline(__always)
    static func nearestFrame(ticks: Int64, ticksPerFrame: Int64) -> Int64 {
        (2 * ticks + ticksPerFrame) / (2 * ticksPerFrame)
    }

    /// The same tempo and beat phase counted in frames of `newRate` from `frame` on (the server
    /// changed its sample rate there): the fraction of a pulse already passed is kept, so the
    /// next pulse comes the same number of seconds after `frame` and 120 BPM stays 120 BPM.
    /// `frame` is not before the clock's last advance. Control thread (a rebuilt engine).
    public func rescaled(to newRate: Int, at frame: Int64) -> HeartbeatClock {
        var clock = HeartbeatClock(sampleRate: newRate)
        guard isRunning else { return clock }
        var old = self
        old.advance(to: frame)
        clock.ticksPerFrame = old.ticksPerFrame
        clock.bpm = old.bpm
        clock.segmentStart = max(frame, old.segmentStart)
        clock.pulsesAtStart = old.pulsesAtStart
        // ticksPerPulse is proportional to the rate: the same fraction of a pulse.
        clock.ticksAtStart = Int64(Int128(old.ticksAtStart) * Int128(clock.ticksPerPulse) / Int128(old.ticksPerPulse))
        clock.nextPulse = old.nextPulse
        // A pulse whose exact time passed but whose rounded frame had not come sounds at `frame`.
        clock.committedFrame = old.committedFrame.map { max($0, clock.segmentStart) }
        return clock
    }
}
