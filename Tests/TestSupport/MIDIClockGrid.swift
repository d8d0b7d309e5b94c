/// MIDI clock against the beats it should divide: exactly 24 clocks in each beat, the first on
/// the beat, and — in each beat whose length is one of `steady` (frames; within a frame) — each
/// clock within a frame of its even place. A beat of another length is one the tempo bent.
public enum MIDIClockGrid {
    public static func check(clocks: [Int64], beats: [Int64], steady: [Double]) -> (problems: [String], bent: Int) {
        var problems: [String] = [], bent = 0
        for (beat, next) in zip(beats, beats.dropFirst()) {
            let within = clocks.filter { $0 >= beat && $0 < next }
            if within.count != 24 { problems.append("\(within.count) clocks in the beat from \(beat)") }
            if within.first != beat { problems.append("no clock on the beat at \(beat): \(within.first.map(String.init) ?? "none")") }
            let spacing = Double(next - beat)
            guard steady.contains(where: { abs($0 - spacing) <= 1 }) else {
                bent += 1
                continue
            }
            for (index, clock) in within.enumerated() where abs(Double(clock - beat) - Double(index) * spacing / 24) > 1 {
                problems.append("clock \(index) of the beat from \(beat) at \(clock), not \(Double(beat) + Double(index) * spacing / 24)")
            }
        }
        return (problems, bent)
    }
}
