/// Heart-rate variability written here from its definitions (Task Force of the ESC/NASPE, 1996),
/// apart from the engine's: the reference its RMSSD and SDNN are held to.
public enum ReferenceVariability {
    /// RMSSD and SDNN (the sample standard deviation) in ms over the most recent `intervals`
    /// (seconds) that sum to at most `window` seconds; nil with fewer than two.
    public static func of(_ intervals: [Double], window: Double) -> (rmssd: Double, sdnn: Double)? {
        var taken: [Double] = [], sum = 0.0
        for interval in intervals.reversed() {
            guard sum + interval <= window else { break }
            taken.insert(interval, at: 0)
            sum += interval
        }
        guard taken.count >= 2 else { return nil }
        let mean = taken.reduce(0, +) / Double(taken.count)
        let sdnn = (taken.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(taken.count - 1)).squareRoot()
        let squares = zip(taken.dropFirst(), taken).map { ($0 - $1) * ($0 - $1) }
        return ((squares.reduce(0, +) / Double(squares.count)).squareRoot() * 1000, sdnn * 1000)
    }

    /// MIT-BIH record 208's RR intervals (s) from scipy's R-peaks over its first `seconds`, the
    /// plausible ones (0.24…2.4 s).
    public static func mitBIH208(seconds: Double = 300) throws -> [Double] {
        let ecg = try RecordedECG.load(end: seconds)
        return zip(ecg.peaks.dropFirst(), ecg.peaks).map { $0 - $1 }.filter { (0.24...2.4).contains($0) }
    }
}
