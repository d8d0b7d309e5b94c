/// MIDI clock's grid on the heartbeat clock: 24 clocks a beat, clock k where the phase reaches
/// k/24 beats (every other one on a pulse), each at the frame nearest that moment, from the
/// same integer ticks the pulses use — so a tempo change bends them exactly as it bends the beats.
extension HeartbeatClock {
    public static let midiClocksPerBeat = 24

    /// Ticks from one MIDI clock to the next: half a pulse.
    @inlinable var ticksPerMIDIClock: Int64 { ticksPerPulse * Int64(BeatRate.pulsesPerBeat) / Int64(Self.midiClocksPerBeat) }

    /// Real-time safe. The frame nearest MIDI clock `index` (clocks since the grid's beat 0) at
    /// the tempo since the last change; nil while no tempo is known.
    public func frame(ofMIDIClock index: Int64) -> Int64? {
        guard isRunning else { return nil }
        let ticks = Int128(index) * Int128(ticksPerMIDIClock) - (Int128(pulsesAtStart) * Int128(ticksPerPulse) + Int128(ticksAtStart))
        return segmentStart + Int64(Self.flooredDivision(2 * ticks + Int128(ticksPerFrame), by: 2 * Int128(ticksPerFrame)))
    }

    /// Real-time safe. The first MIDI clock whose frame is at or after `frame` (not before the
    /// last tempo change); nil while no tempo is known.
    public func midiClock(atOrAfter frame: Int64) -> Int64? {
        guard isRunning else { return nil }
        let phase = phaseTicks(atFrame: frame)
        var index = Int64(Self.flooredDivision(phase, by: Int128(ticksPerMIDIClock)))
        // Rounding to the nearest frame moves a clock by half a frame at most: a step or two.
        while let at = self.frame(ofMIDIClock: index), at < frame { index += 1 }
        while let before = self.frame(ofMIDIClock: index - 1), before >= frame { index -= 1 }
        return index
    }

    static func flooredDivision(_ value: Int128, by divisor: Int128) -> Int128 {
        let quotient = value / divisor
        return value % divisor != 0 && (value < 0) != (divisor < 0) ? quotient - 1 : quotient
    }
}
