import Foundation

/// How the live tests judge beats heard from a real jackd. Without xruns, the tests demand the
/// exact grid. With xruns (the dummy driver on an overloaded machine, where a late callback can
/// look like a lost cycle and the reverse), an interval may be off the grid by whole periods,
/// and by no more in all than the frames pulsejack reported skipping plus one period an xrun.
public enum LiveGrid {
    /// The xruns and skipped frames in pulsejack's stop line ("… 3 xruns (512 frames skipped) …").
    public static func xruns(in output: String) -> (xruns: Int, skipped: Int) {
        guard let range = output.range(of: " xruns (") else { return (0, 0) }
        let before = output[..<range.lowerBound].split(separator: " ").last.flatMap { Int($0) } ?? 0
        let skipped = output[range.upperBound...].split(separator: " ").first.flatMap { Int($0) } ?? 0
        return (before, skipped)
    }

    /// Whether each interval between `onsets` is whole beats of `framesPerBeat` (±1 frame of
    /// rounding), give or take whole periods within the budget the stop line allows.
    public static func onGrid(_ onsets: [Int64], framesPerBeat: Double, period: Int64 = 256, output: String) -> Bool {
        let (xruns, skipped) = xruns(in: output)
        var budget = Double(skipped) + Double(xruns) * Double(period)
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
