/// How a live sensor test judges the beats it heard against the R-peaks the sensor sent: each
/// beat a fixed delay after its peak, the sensor's clock against JACK's, within `tolerance`.
///
/// The one exception is an xrun. The dummy driver starts its cycle grid again from a late cycle
/// (`JackTimedDriver::ProcessWait`), so JACK's frames fall behind the sensor's clock by the
/// lateness for good; the engine's mapping follows at the next notification, and the beats after
/// it sit that much less after their peaks. So the peaks fall into runs, each at one delay, each
/// delay less than the last (by no more than a stall of `largestStep`), and a run more only for
/// each xrun.
public enum BeatDelayRuns {
    public struct Run: Equatable, Sendable {
        public var delay: Double
        public var peaks: Int
    }

    /// The fewest runs of consecutive `peaks` (seconds, the sensor's clock) that each have a
    /// beat (seconds, JACK's) at one delay; nil when no such runs cover every peak.
    public static func runs(beats: [Double], peaks: [Double], tolerance: Double = 0.01, largestStep: Double = 0.25) -> [Run]? {
        func agreeing(from start: Int, at delay: Double) -> Int {
            var count = 0
            for peak in peaks[start...] {
                guard beats.contains(where: { abs($0 - peak - delay) < tolerance }) else { break }
                count += 1
            }
            return count
        }
        // The fewest runs from peak `start` on, the first at the delay to beat `beat`: each run as
        // long as its delay holds, the next at any delay a step less.
        var fewest: [Int: [Run]?] = [:]
        func cover(from start: Int, beat: Int) -> [Run]? {
            let key = start * beats.count + beat
            if let known = fewest[key] { return known }
            let delay = beats[beat] - peaks[start]
            let run = Run(delay: delay, peaks: agreeing(from: start, at: delay))
            var best: [Run]? = nil
            if start + run.peaks == peaks.count {
                best = [run]
            } else {
                for next in beats.indices {
                    let step = delay - (beats[next] - peaks[start + run.peaks])
                    guard step >= tolerance, step < largestStep, let rest = cover(from: start + run.peaks, beat: next) else { continue }
                    if best == nil || rest.count + 1 < best!.count { best = [run] + rest }
                }
            }
            fewest[key] = best
            return best
        }
        guard !peaks.isEmpty else { return [] }
        return beats.indices.compactMap { cover(from: 0, beat: $0) }.min { $0.count < $1.count }
    }
}
