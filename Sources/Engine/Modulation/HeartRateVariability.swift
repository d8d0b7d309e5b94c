import Realtime

/// One heart's short-term variability, from its intervals as they arrive: RMSSD and SDNN (Task
/// Force of the ESC/NASPE, 1996) over the most recent intervals that sum to at most `window`
/// seconds, and the breathing rate the intervals carry (`BreathFromHeart`). Every plausible
/// interval counts, as the source gave it: no ectopic beat is removed. Made before activation;
/// the process thread adds intervals in place.
package final class HeartRateVariability {
    /// Seconds of intervals RMSSD and SDNN are taken over (the preset's `hrv_window`).
    let window: Double
    /// The intervals kept: the last `BreathFromHeart.span` seconds or `window`, whichever is longer.
    private let intervals: FixedBuffer<Double>
    /// The oldest kept interval's index in `intervals` (a ring), and how many are kept.
    private var oldest = 0
    private(set) var count = 0
    private var keptSeconds = 0.0
    private let breathing: BreathFromHeart

    /// The last interval, s; RMSSD and SDNN in ms over the window; breaths a minute. NaN until known.
    private(set) var lastInterval = Double.nan
    private(set) var rmssd = Double.nan
    private(set) var sdnn = Double.nan
    private(set) var breathRate = Double.nan

    /// The shortest interval a heart gives (`PlausibleHeart`'s 0.24 s): the most a window holds.
    static let shortestInterval = 0.24

    /// Control thread. `window`: seconds, 5…300.
    package init(window: Double) {
        precondition(window > 0)
        self.window = window
        let kept = max(window, BreathFromHeart.span)
        intervals = FixedBuffer(capacity: Int((kept / Self.shortestInterval).rounded(.up)) + 2, repeating: 0)
        breathing = BreathFromHeart()
    }

    /// Real-time safe. One interval (seconds); an implausible one (outside 0.24…2.4 s) is left
    /// out. Bounded by the window's capacity and the breathing estimate's fixed size.
    package func add(_ seconds: Double) {
        guard seconds.isFinite, seconds >= Self.shortestInterval, seconds <= 2.4 else { return }
        if count == intervals.capacity { drop() }
        intervals[(oldest + count) % intervals.capacity] = seconds
        count += 1
        keptSeconds += seconds
        while count > 1 && keptSeconds - intervals[oldest] >= max(window, BreathFromHeart.span) { drop() }
        lastInterval = seconds
        measure()
    }

    /// Real-time safe. Forgets every interval (a new heart).
    package func reset() {
        oldest = 0
        count = 0
        keptSeconds = 0
        lastInterval = .nan
        rmssd = .nan
        sdnn = .nan
        breathRate = .nan
    }

    /// Control thread, neither engine running: `old`'s intervals and measures (an engine rebuilt
    /// at another rate keeps the heart's history).
    func take(_ old: HeartRateVariability) {
        reset()
        for number in stride(from: min(old.count, intervals.capacity) - 1, through: 0, by: -1) { add(old.recent(number)) }
    }

    /// Real-time safe. The `number`th most recent interval (0: the last).
    @inline(__always)
    func recent(_ number: Int) -> Double { intervals[(oldest + count - 1 - number) % intervals.capacity] }

    private func drop() {
        keptSeconds -= intervals[oldest]
        oldest = (oldest + 1) % intervals.capacity
        count -= 1
    }

    /// Real-time safe. RMSSD and SDNN over the most recent intervals summing to at most the window
    /// (two at least); the breathing rate over the span kept.
    private func measure() {
        var n = 0, sum = 0.0
        while n < count && sum + recent(n) <= window {
            sum += recent(n)
            n += 1
        }
        if n >= 2 {
            let mean = sum / Double(n)
            var squares = 0.0, successive = 0.0
            for index in 0..<n {
                let deviation = recent(index) - mean
                squares += deviation * deviation
                if index > 0 {
                    let difference = recent(index - 1) - recent(index)
                    successive += difference * difference
                }
            }
            sdnn = (squares / Double(n - 1)).squareRoot() * 1000
            rmssd = (successive / Double(n - 1)).squareRoot() * 1000
        }
        if let rate = breathing.estimate(intervals, newest: (oldest + count - 1) % intervals.capacity, count: count) { breathRate = rate }
    }
}
