/// MIDI clock against the beats it should divide: exactly 24 clocks in each beat, the first on
/// the beat, and — in each beat whose length is one of `steady` (frames; within a frame) — each
/// clock within a frame of its even place. A beat of another length is one the tempo bent.
///
/// Live, the captures are JACK clients the server may not run for a cycle (`clockGaps`,
/// `beatGaps`: the stretches each capture was not run for). A clock due in such a stretch, or in
/// the `cycleAfterGap` frames after it (PipeWire hands a client the first cycle after its own gap
/// unreliably: a clock due 160 frames into it never arrived), is never seen or seen late there —
/// not the engine's doing — so it is excused; a beat whose note fell in one (two beats read as
/// one) is left out.
///
/// `woundBack`: the periods pulsejack's stop line says it wound back (a skip on a late reading of
/// PipeWire's clock, shown false by the next): what was due in each sounded one period early, so
/// that many clocks exactly `period` frames before their place are on it.
///
/// `skipped`: the periods the stop line says pulsejack skipped (on jackd2, a lost cycle applied a
/// period late, once the next reading confirmed it): a clock due in skipped frames is sent at the
/// first frame played next (`MIDIClockOut.collect` loses none), so that many clocks less than a
/// period after their place are on it — CI: clock 8 due at 37425357 heard at 37425408, 256
/// frames skipped, its ear's own gap the period before.
public enum MIDIClockGrid {
    public static func check(clocks: [Int64], beats: [Int64], steady: [Double],
                             clockGaps: [Range<Int64>] = [], beatGaps: [Range<Int64>] = [], cycleAfterGap: Int64 = 0,
                             woundBack: Int = 0, skipped: Int = 0, period: Int64 = 256)
        -> (problems: [String], bent: Int) {
        func unheard(_ frame: Int64, _ gaps: [Range<Int64>]) -> Bool {
            gaps.contains { $0.lowerBound <= frame && frame <= $0.upperBound + cycleAfterGap }
        }
        var problems: [String] = [], bent = 0, earlyBudget = woundBack, lateBudget = skipped
        for (beat, next) in zip(beats, beats.dropFirst()) {
            let within = clocks.filter { $0 >= beat && $0 < next }
            let spacing = Double(next - beat)
            if steady.contains(where: { abs(2 * $0 - spacing) <= 2 && unheard(beat + Int64($0), beatGaps) }) { continue }
            guard steady.contains(where: { abs($0 - spacing) <= 1 }) else {
                bent += 1
                if within.count != 24 && !clockGaps.contains(where: { $0.overlaps(beat..<next + 1) }) {
                    problems.append("\(within.count) clocks in the bent beat from \(beat)")
                }
                continue
            }
            var matched = Set<Int64>()
            for index in 0..<24 {
                let due = Double(beat) + Double(index) * spacing / 24
                if let clock = within.first(where: { abs(Double($0) - due) <= 1 }) {
                    matched.insert(clock)
                } else if earlyBudget > 0, let clock = clocks.first(where: { abs(Double($0 + period) - due) <= 1 }) {
                    earlyBudget -= 1
                    matched.insert(clock)
                } else if lateBudget > 0, let clock = within.first(where: { Double($0) > due && Double($0) - due < Double(period) }),
                          !matched.contains(clock) {
                    lateBudget -= 1
                    matched.insert(clock)
                } else if !unheard(Int64(due.rounded(.up)), clockGaps) {
                    problems.append("clock \(index) of the beat from \(beat), due at \(due), not heard (the beat's clocks: \(within))")
                } else if let late = within.first(where: { clock in clockGaps.contains { $0.upperBound == clock && Double($0.lowerBound) <= due } }) {
                    matched.insert(late)
                }
            }
            for clock in within where !matched.contains(clock) {
                problems.append("a clock at \(clock) in the beat from \(beat), on no clock's place")
            }
        }
        return (problems, bent)
    }
}
