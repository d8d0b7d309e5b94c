import Inputs

/// An independent reference for the heartbeat contract, for tests and benchmarks: with integer
/// BPMs, the phase in units of 1/(60·sr) beat is summed from the first update without any
/// rebasing, in Int128, and beat k lands at the nearest frame to the moment the phase reaches k.
public enum ReferenceBeats {
    /// Frames of every beat before `end`, for tempo `changes` (the first is the first update).
    public static func frames(sampleRate: Int, changes: [(frame: Int64, bpm: Int)], end: Int64) -> [Int64] {
        var beats: [Int64] = []
        let unitsPerBeat = Int128(60 * sampleRate)
        var phase: Int128 = 0  // at the current change's frame
        for (index, change) in changes.enumerated() {
            let segmentEnd = index + 1 < changes.count ? changes[index + 1].frame : end
            let bpm = Int128(change.bpm)
            var k = (phase + unitsPerBeat - 1) / unitsPerBeat  // first beat at or after this segment's start
            while true {
                let units = k * unitsPerBeat - phase
                // The exact time is change.frame + units/bpm; it belongs here if before segmentEnd.
                guard units < Int128(segmentEnd - change.frame) * bpm else { break }
                beats.append(change.frame + Int64((2 * units + bpm) / (2 * bpm)))
                k += 1
            }
            phase += Int128(segmentEnd - change.frame) * bpm
        }
        return beats.filter { $0 < end }
    }

    /// A reproducible tempo course: a change every 5 to 20 s to a BPM in 50…180, from `seed`.
    public static func wanderingTempo(sampleRate: Int, seconds: Int, start: Int64 = 0, seed: UInt64) -> [(frame: Int64, bpm: Int)] {
        var generator = SplitMix64(seed: seed)
        func next() -> UInt64 { generator.next() }
        var changes: [(frame: Int64, bpm: Int)] = [(start, 50 + Int(next() % 131))]
        var frame = start
        while true {
            frame += Int64(sampleRate) * Int64(5 + next() % 16) + Int64(next() % UInt64(sampleRate))
            guard frame < start + Int64(seconds * sampleRate) else { break }
            changes.append((frame, 50 + Int(next() % 131)))
        }
        return changes
    }
}
