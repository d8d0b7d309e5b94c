/// The heartbeat clock's phase read as beats, for the hosted plugins' time (`TimePosition`).
extension HeartbeatClock {
    /// Phase ticks in one beat.
    @inlinable public var ticksPerBeat: Int64 { ticksPerPulse * Int64(BeatRate.pulsesPerBeat) }

    /// Ticks one frame moves the phase by (the tempo in micro-BPM); 0 while no tempo is known.
    @inlinable public var phaseTicksPerFrame: Int64 { ticksPerFrame }

    /// Real-time safe. The phase at `frame` (not before the last advance) in ticks since beat 0,
    /// at the tempo since the last change.
    @inlinable public func phaseTicks(atFrame frame: Int64) -> Int128 {
        Int128(pulsesAtStart) * Int128(ticksPerPulse) + Int128(ticksAtStart) + Int128(frame - segmentStart) * Int128(ticksPerFrame)
    }

    /// Real-time safe. The phase at `frame` in beats: whole beats exact, the fraction to a
    /// double's precision; nil while no tempo is known.
    public func beat(atFrame frame: Int64) -> Double? {
        guard isRunning else { return nil }
        let phase = phaseTicks(atFrame: frame), perBeat = Int128(ticksPerBeat)
        let whole = Self.flooredDivision(phase, by: perBeat)
        let rest = phase - whole * perBeat
        return Double(Int64(truncatingIfNeeded: whole)) + Double(Int64(truncatingIfNeeded: rest)) / Double(ticksPerBeat)
    }
}
