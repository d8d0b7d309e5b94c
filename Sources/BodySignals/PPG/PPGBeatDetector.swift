/// Finds heartbeats in a raw pulse wave (PPG, or an ECG lead) as it streams in: the upstroke of
/// each pulse, where the smoothed signal's slope crosses an adaptive threshold (half of its
/// recent peak slope, which decays so the detector follows a weakening signal). Slope rather
/// than level makes it deaf to baseline wander; an upstroke must last 40 ms and a refractory period keeps the
/// dicrotic notch and noise from counting twice. It learns for 1.5 s before reporting its first beat. Sensor thread.
public struct PPGBeatDetector: Sendable {
    public let sampleRate: Double
    /// Samples seen so far.
    public private(set) var sampleCount: Int64 = 0
    /// The sample index of the last beat and the interval before it (seconds).
    public private(set) var lastBeat: Int64?
    public private(set) var lastInterval: Double?

    private var smoothing: [Double]
    private var smoothingIndex = 0
    private var smoothedHistory: [Double]
    private var historyIndex = 0
    private var peakSlope = 0.0
    private let slopeLag: Int
    private let refractory: Int64
    private let peakDecay: Double
    /// Consecutive samples the slope has stayed above the threshold; an upstroke must last
    /// `persistence` samples (a real one lasts about 100 ms, a noise spike one or two samples).
    private var aboveFor = 0
    private let persistence: Int

    public init(sampleRate: Double) {
        precondition(sampleRate >= 10 && sampleRate <= 10_000)
        self.sampleRate = sampleRate
        smoothing = [Double](repeating: 0, count: max(1, Int(sampleRate * 0.04)))
        slopeLag = max(1, Int(sampleRate * 0.05))
        smoothedHistory = [Double](repeating: 0, count: slopeLag + 1)
        refractory = Int64(sampleRate * 0.3)
        persistence = max(2, Int(sampleRate * 0.04))
        peakDecay = 1 / (2 * sampleRate)
    }

    /// The beats per minute the last interval implies.
    public var bpm: Double? { lastInterval.map { 60 / $0 } }

    /// Feeds one sample; returns true when it completes a beat's upstroke.
    public mutating func process(_ sample: Double) -> Bool {
        defer { sampleCount += 1 }
        guard sample.isFinite else { return false }
        smoothing[smoothingIndex] = sample
        smoothingIndex = (smoothingIndex + 1) % smoothing.count
        let smoothed = smoothing.reduce(0, +) / Double(smoothing.count)
        smoothedHistory[historyIndex] = smoothed
        let lagged = smoothedHistory[(historyIndex + 1) % smoothedHistory.count]
        historyIndex = (historyIndex + 1) % smoothedHistory.count
        guard sampleCount > Int64(slopeLag + smoothing.count) else { return false }
        let slope = smoothed - lagged
        peakSlope = max(slope, peakSlope * (1 - peakDecay))
        aboveFor = slope > 0.5 * peakSlope && slope > 0 ? aboveFor + 1 : 0
        // The first 1.5 s only learn the signal's slope (a detector that has seen nothing yet
        // would take noise for a beat).
        guard aboveFor == persistence, Double(sampleCount) >= 1.5 * sampleRate else { return false }
        if let last = lastBeat {
            guard sampleCount - last >= refractory else { return false }
            lastInterval = Double(sampleCount - last) / sampleRate
        }
        lastBeat = sampleCount
        return true
    }
}
