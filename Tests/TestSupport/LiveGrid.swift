import Foundation

/// How the live tests judge beats heard from a real jackd. Without xruns, the tests demand the
/// exact grid. With xruns (the dummy driver on an overloaded machine, where a late callback can
/// look like a lost cycle and the reverse), an interval may be off the grid by whole periods,
/// and by no more in all than the frames pulsejack reported skipping plus one period an xrun.
public enum LiveGrid {
    /// How long after a connect a listener's first reliable period comes (half a second at
    /// 48 kHz): PipeWire makes a link active some cycles after `jack_connect` returns (seen at
    /// frames 97 and 228), and in a cycle between it may run the listener before our client,
    /// which then reads the port's last period (a click heard 256 frames late, seen once in CI);
    /// jackd2 orders them before the call returns. Tests judge what was heard from then on.
    public static let linksSettle: Int64 = 24_000

    /// The xruns and skipped frames in pulsejack's stop line ("… 3 xruns (512 frames skipped) …").
    public static func xruns(in output: String) -> (xruns: Int, skipped: Int) {
        guard let range = output.range(of: " xruns (") else { return (0, 0) }
        let before = number(before: range, in: output)
        let skipped = output[range.upperBound...].split(separator: " ").first.flatMap { Int($0) } ?? 0
        return (before, skipped)
    }

    /// The frames pulsejack's stop line says it wound back ("…, 256 frames wound back"): skips a
    /// later reading of JACK's clock showed false, whose events sounded that much early (the
    /// frames skipped in `xruns(in:)` are net of them).
    public static func woundBack(in output: String) -> Int {
        guard let range = output.range(of: " frames wound back") else { return 0 }
        return number(before: range, in: output)
    }

    /// The stop line's count just before the words at `range` (0 if none).
    private static func number(before range: Range<String.Index>, in output: String) -> Int {
        output[..<range.lowerBound].split(separator: " ").last.flatMap { Int($0) } ?? 0
    }

    /// The cycles the stop line shows disturbed: each xrun (jackd2 tells of each; its lost cycles
    /// are the periods skipped, so the more of the two) and each period wound back (PipeWire's
    /// dummy driver reports no xrun: a late cycle there shows only as frames skipped or wound back).
    public static func disturbedCycles(in output: String, period: Int = 256) -> Int {
        let (xruns, skipped) = xruns(in: output)
        func periods(_ frames: Int) -> Int { (frames + period - 1) / period }
        return max(xruns, periods(skipped)) + periods(woundBack(in: output))
    }

    /// The onsets off a grid `spacing` frames apart (at the phase most onsets share) as jackd2's
    /// graph places a sound around a late cycle (an xrun): a period early or late (a listener run
    /// on the port's next or last period), or heard twice (the same period read again). Nil when
    /// an onset is off the grid by anything else. `lateBudget` (frames): a click heard whole
    /// periods later still, because our client itself ran that late (an xrun: its port's buffer
    /// is read in a later cycle), spends the periods beyond the first from it — the budget
    /// `onGrid` allows, the frames skipped plus a period an xrun (CI: 24001984 for 24001472 and
    /// 1141952 for 1141440, 113 and 111 xruns).
    /// `withinAPeriod`: any onset less than a period either way is off the grid, not wrong (an
    /// ear whose own cycles' frame times the server misreports by part of a period).
    public static func offGrid(_ onsets: [Int64], spacing: Int64, period: Int64 = 256, lateBudget: Int64 = 0,
                               withinAPeriod: Bool = false) -> [Int64]? {
        func phase(_ frame: Int64) -> Int64 { (frame % spacing + spacing) % spacing }
        guard let grid = gridPhase(onsets, spacing: spacing) else { return [] }
        var off: [Int64] = [], heard: Set<Int64> = [], budget = lateBudget
        for onset in onsets {
            let deviation = (phase(onset - grid) + spacing / 2) % spacing - spacing / 2
            if deviation > period && deviation % period == 0 && deviation - period <= budget {
                budget -= deviation - period
            } else if ![0, period, -period].contains(deviation) && !(withinAPeriod && abs(deviation) < period) {
                return nil
            }
            if deviation == 0 {
                if !heard.insert(onset).inserted { off.append(onset) }
            } else {
                off.append(onset)
                // The grid frame it belongs to: heard there too, it is one sound heard twice.
                heard.insert(onset - deviation)
            }
        }
        return off
    }

    /// Onsets a grid `spacing` frames apart as a loaded PipeWire ear can place them: one within
    /// a period after a gap of the ear's own is the server's late delivery of what was due in the
    /// gap (left out: the gap excuses its click), and any other within a period of a grid frame
    /// (at the phase most onsets share) is on it. The ear reads its own cycles' frame times a
    /// period either way, and pulsejack sounds a pulse a period early once where it skipped a
    /// cycle on a late reading and later wound it back (`frames_rewound`; docs/bad-input.md) —
    /// CI, 0 xruns: 1493000 for 1492744, right after the gap 1492736..<1492992; 1621488 for
    /// 1621744, and a first hat at 167488 for 167744, with no gap near.
    /// One exactly on the grid after a gap is on time, and kept (CI: the victim's 1321200, 240
    /// frames after the gap 1320448..<1320960, was left out, then missed).
    public static func placedOnPipeWire(_ onsets: [Int64], spacing: Int64, gaps: [Range<Int64>], period: Int64 = 256) -> [Int64] {
        let kept = onsets.filter { !afterAGap($0, gaps: gaps, period: period) }
        func phase(_ frame: Int64) -> Int64 { (frame % spacing + spacing) % spacing }
        guard let grid = gridPhase(kept, spacing: spacing) else { return kept }
        return onsets.compactMap { onset in
            let deviation = (phase(onset - grid) + spacing / 2) % spacing - spacing / 2
            if afterAGap(onset, gaps: gaps, period: period) { return deviation == 0 ? onset : nil }
            return abs(deviation) <= period ? onset - deviation : onset
        }
    }

    /// Onsets due at `expected` frames as a loaded PipeWire ear can place them (as above): one
    /// within a period after a gap of the ear's own left out, any other within a period of an
    /// expected frame on it.
    public static func placedOnPipeWire(_ onsets: [Int64], expected: Set<Int64>, gaps: [Range<Int64>], period: Int64 = 256) -> [Int64] {
        onsets.filter { expected.contains($0) || !afterAGap($0, gaps: gaps, period: period) }.map { onset in
            expected.contains(onset) ? onset : expected.first { abs($0 - onset) <= period } ?? onset
        }
    }

    /// Onsets due at `expected` frames as jackd2's graph places a sound around a disturbed cycle
    /// (`offGrid`: a period early or late), each such onset on its expected frame, at most
    /// `disturbed` of them (the stop line's `disturbedCycles`) — CI, the hat due at 8153568 heard
    /// at 8153824, the run disturbed.
    public static func placedAroundDisturbances(_ onsets: [Int64], expected: Set<Int64>, disturbed: Int, period: Int64 = 256) -> [Int64] {
        var budget = disturbed
        return onsets.map { onset in
            guard !expected.contains(onset), budget > 0,
                  let frame = [onset - period, onset + period].first(where: { expected.contains($0) && !onsets.contains($0) }) else { return onset }
            budget -= 1
            return frame
        }
    }

    /// The phase (frames, 0..<spacing) of a grid `spacing` frames apart that most onsets share,
    /// the least such on a tie; nil without onsets.
    public static func gridPhase(_ onsets: [Int64], spacing: Int64) -> Int64? {
        let counts = Dictionary(grouping: onsets) { ($0 % spacing + spacing) % spacing }.mapValues(\.count)
        return counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key
    }

    /// Whether `onset` lies within a period after the end of one of an ear's `gaps`.
    public static func afterAGap(_ onset: Int64, gaps: [Range<Int64>], period: Int64 = 256) -> Bool {
        gaps.contains { $0.upperBound <= onset && onset - $0.upperBound <= period }
    }

    /// Whether pulsejack's stop line shows neither an xrun (jackd2 tells of each) nor a cycle it
    /// was not run for (all PipeWire's dummy driver shows of a late one) nor one it wound back:
    /// then the grid is exact.
    public static func undisturbed(_ output: String) -> Bool {
        disturbedCycles(in: output) == 0
    }

    /// Whether each interval between `onsets` is whole beats of `framesPerBeat` (±1 frame of
    /// rounding), give or take whole periods within the budget the stop line allows (the frames
    /// skipped, twice the frames wound back, and a period an xrun).
    public static func onGrid(_ onsets: [Int64], framesPerBeat: Double, period: Int64 = 256, output: String) -> Bool {
        let (xruns, skipped) = xruns(in: output)
        // A beat a period off moves two intervals: an xrun's period and the period it skipped
        // pay for both, as a period wound back (its skip and its rewind) does.
        var budget = Double(skipped + 2 * woundBack(in: output)) + Double(xruns) * Double(period)
        for (later, earlier) in zip(onsets.dropFirst(), onsets) {
            let interval = Double(later - earlier)
            let deviation = interval - (interval / framesPerBeat).rounded() * framesPerBeat
            let periods = (deviation / Double(period)).rounded()
            guard abs(deviation - periods * Double(period)) <= 1 else { return false }
            budget -= abs(periods) * Double(period)
        }
        return budget >= 0
    }
}
