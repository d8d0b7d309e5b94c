/// R-peaks in a live ECG (Polar's 130 Hz stream), sample by sample, at the sensor's own times —
/// the pulse-wave detector's job, done for ECG the way Pan and Tompkins do it:
///
/// - The QRS complex is where the band-passed (5–20 Hz) signal's squared slope, summed over
///   150 ms, peaks. A peak of that sum is a candidate once 120 ms have passed with none higher.
/// - A candidate is a beat when it rises above the noise level by a quarter of the way to the
///   signal level (the median of the last 8 beats' peaks: one huge ventricular beat does not
///   deafen it). The first 2 s only learn the level.
/// - When no beat has come for 1.66 times the mean interval, the largest candidate since the
///   last beat is one if it reaches 35 % of that threshold (a small beat after a large one).
/// - The R-peak is the band-passed signal's highest point in the 350 ms before the candidate,
///   the filter run forwards and backwards so nothing moves it, placed between samples by a
///   parabola; at least 200 ms after the last one.
///
/// A beat is known 120 ms (and the time its samples take to arrive) after its R-peak.
/// Sensor thread (or a test): it allocates.
public struct ECGBeatDetector: Sendable {
    public let sampleRate: Double
    private var bandPass: BandPass
    private let integration: Int, lookahead: Int, settle: Int, learning: Int, searchWindow: Int, refractory: Int, kept: Int

    // The recent past, from absolute sample `first` on.
    private var first = 0
    private var raw: [Double] = [], times: [Double] = [], energy: [Double] = []
    private var slopes: [Double] = []
    private var slopeSum = 0.0
    private var lastFiltered: Double?

    private var signalPeaks: [Double] = []
    private var noiseLevel = 0.0
    private var intervals: [Double] = []
    private var lastBeat: (time: Double, sample: Int)?
    private var candidates: [Int] = []

    static let signalMemory = 8, intervalMemory = 8
    static let searchBackAfter = 1.66, searchBackLevel = 0.35, thresholdFraction = 0.25

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        bandPass = BandPass(low: 5, high: 20, sampleRate: sampleRate)
        func samples(_ seconds: Double) -> Int { Int(seconds * sampleRate) }
        integration = samples(0.15)
        lookahead = samples(0.12)
        settle = samples(0.3)
        learning = samples(2)
        searchWindow = samples(0.35)
        refractory = samples(0.2)
        kept = samples(6)
    }

    /// One sample (µV) at `time` (seconds, the sensor's); the R-peak's time when one is decided.
    public mutating func add(_ value: Double, at time: Double) -> Double? {
        let filtered = bandPass(value)
        let slope = filtered - (lastFiltered ?? filtered)
        lastFiltered = filtered
        slopes.append(slope * slope)
        slopeSum += slope * slope
        if slopes.count > integration { slopeSum -= slopes.removeFirst() }
        raw.append(value)
        times.append(time)
        energy.append(max(slopeSum, 0))
        if raw.count > 2 * kept {
            let drop = raw.count - kept
            raw.removeFirst(drop)
            times.removeFirst(drop)
            energy.removeFirst(drop)
            first += drop
            candidates.removeAll { $0 < first }
        }
        let now = first + raw.count - 1
        let decided = now - lookahead
        guard decided >= settle else { return nil }
        var beat: Double?
        if isCandidate(decided) {
            let peak = energy[decided - first]
            if decided < learning {
                signalPeaks = [max(signalPeaks.first ?? 0, peak)]
                return nil
            }
            if peak > threshold {
                beat = accept(decided, now: now)
                candidates = []
            } else {
                noiseLevel = 0.125 * peak + 0.875 * noiseLevel
                candidates.append(decided)
            }
        }
        if beat == nil, intervals.count >= 2, let lastBeat, !candidates.isEmpty,
           times[decided - first] - lastBeat.time > Self.searchBackAfter * intervals.reduce(0, +) / Double(intervals.count) {
            let best = candidates.max { energy[$0 - first] < energy[$1 - first] }!
            if energy[best - first] > Self.searchBackLevel * threshold {
                beat = accept(best, now: now)
                candidates.removeAll { $0 <= best }
            } else {
                candidates = []
            }
        }
        return beat
    }

    /// The highest energy within `lookahead` samples either side.
    private func isCandidate(_ sample: Int) -> Bool {
        let value = energy[sample - first]
        guard value > 0 else { return false }
        let from = max(first, sample - lookahead), to = sample + lookahead
        return (from...to).allSatisfy { energy[$0 - first] <= value }
    }

    private var threshold: Double {
        let sorted = signalPeaks.sorted()
        let signal = sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        return noiseLevel + Self.thresholdFraction * (signal - noiseLevel)
    }

    private mutating func accept(_ candidate: Int, now: Int) -> Double? {
        signalPeaks = Array((signalPeaks + [energy[candidate - first]]).suffix(Self.signalMemory))
        let start = max(first, candidate - Int(sampleRate))
        let filtered = bandPass.zeroPhase(raw[(start - first)...(now - first)])
        let from = max(candidate - searchWindow, start + 1, lastBeat.map { $0.sample + refractory } ?? 0)
        guard from <= candidate else { return nil }
        let best = (from...candidate).max { filtered[$0 - start] < filtered[$1 - start] }!
        var time = times[best - first]
        let (left, middle, right) = (filtered[best - start - 1], filtered[best - start], filtered[best - start + 1])
        let curvature = left - 2 * middle + right
        if curvature < 0 { time += 0.5 * (left - right) / curvature * (times[best - first + 1] - times[best - first]) }
        if let lastBeat { intervals = Array((intervals + [time - lastBeat.time]).suffix(Self.intervalMemory)) }
        lastBeat = (time, best)
        return time
    }
}
