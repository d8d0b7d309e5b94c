/// Another clock's beat grid laid on the heartbeat clock (Ableton Link's session: pulsejack
/// leads its tempo or follows it, and its beats fall on the session's either way).
extension HeartbeatClock {
    /// Real-time safe. How far the phase at `frame` is behind `beat` (a fractional beat of the
    /// other grid), in ticks: positive when the clock is behind. `frame` is not before the last
    /// advance; nil while no tempo is known.
    public func ticksBehind(beat: Double, atFrame frame: Int64) -> Int128? {
        guard isRunning, let (pulses, ticks) = Self.pulses(of: beat, ticksPerPulse: ticksPerPulse) else { return nil }
        let mine = phaseTicks(atFrame: frame)
        return Int128(pulses) * Int128(ticksPerPulse) + Int128(ticks) - mine
    }

    /// Real-time safe. Puts the phase at `frame` on `beat` (fractional), the tempo kept, when
    /// it is more than half a frame off (a nearer grid is already this one, to the frame).
    /// No pulse fires twice, and none is lost to a small correction: the next pulse stays
    /// next when the new phase is at most two pulses before it (it fires when reached; the
    /// pulse just fired, which a phase moved back behind it would reach again, does not fire
    /// again) or less than half a pulse past it (it fires at once, at `frame`); a larger jump
    /// (the first alignment, a new session timeline) starts from the first pulse after the new
    /// phase.
    /// Returns whether the phase moved.
    @discardableResult
    public mutating func align(beat: Double, atFrame frame: Int64) -> Bool {
        guard let behind = ticksBehind(beat: beat, atFrame: frame),
              behind > Int128(ticksPerFrame / 2) || behind < -Int128(ticksPerFrame / 2),
              let (pulses, ticks) = Self.pulses(of: beat, ticksPerPulse: ticksPerPulse) else { return false }
        advance(to: frame)
        pulsesAtStart = pulses
        ticksAtStart = ticks
        // The phase past `nextPulse`, in ticks (negative: before it).
        let past = (Int128(pulses) - Int128(nextPulse)) * Int128(ticksPerPulse) + Int128(ticks)
        // Moved back behind the pulse just fired: Link's session, re-estimated under load, put
        // a beat 5.6 ms later than where it had just sounded, and it sounded twice (CI).
        if past <= 0 && past >= -2 * Int128(ticksPerPulse) {
            committedFrame = nil
        } else if past > 0 && past < Int128(ticksPerPulse / 2) {
            committedFrame = frame
        } else {
            nextPulse = ticks == 0 ? pulses : pulses + 1
            committedFrame = nil
        }
        return true
    }

    /// A fractional beat as whole pulses and the ticks beyond them (floored); nil for a beat from
    /// outside that is no number or beyond 10¹⁴ (never converted: that would trap).
    static func pulses(of beat: Double, ticksPerPulse: Int64) -> (pulses: Int64, ticks: Int64)? {
        guard beat.isFinite, abs(beat) < 1e14 else { return nil }
        let total = beat * Double(BeatRate.pulsesPerBeat)
        // Floored by hand: `rounded(.down)` reads its rule's metadata (a lock and an allocation
        // the first time, on this thread).
        var whole = Int64(total)
        if Double(whole) > total { whole -= 1 }
        let ticks = min(max(Int64((total - Double(whole)) * Double(ticksPerPulse)), 0), ticksPerPulse - 1)
        return (whole, ticks)
    }
}
