import Foundation
import Realtime

/// Band powers from raw EEG the way the Muse SDK defines them: every tenth of a second, for each
/// sensor, the power spectral density of its last second of samples (256 at the Muse's 256 Hz;
/// any rate an LSL stream declares: always 1 Hz bins) through a
/// Hamming window, one-sided, its mean removed first — what scipy's `welch(x, fs=256,
/// window='hamming', nperseg=256)` gives for one segment — summed over each band's bins
/// (delta 1–4, theta 4–8, alpha 7.5–13, beta 13–30, gamma 30–44 Hz; a bin at f belongs to
/// a band when lo ≤ f < hi). Absolute: log10 of that sum (µV²/Hz), averaged over the sensors;
/// relative: each band's sum over the five bands' sum, averaged likewise.
public struct EEGBandPowers: Sendable {
    /// The Muse's rate, and the window there.
    public static let sampleRate = 256
    public static let window = 256
    public static let updatesPerSecond = 10.0
    /// Samples a second, and a window's length (a second's: 1 Hz bins).
    public let sampleRate: Int
    public var window: Int { sampleRate }
    /// Each band's edges in Hz, in `EEGBand` order (alpha, beta, delta, theta, gamma).
    public static let bands: [EEGBand: ClosedRange<Double>] = [
        .delta: 1...4, .theta: 4...8, .alpha: 7.5...13, .beta: 13...30, .gamma: 30...44,
    ]

    public struct Reading: Equatable, Sendable {
        public var absolute: [EEGBand: Double]
        public var relative: [EEGBand: Double]
    }

    private var channels: [[Double]]
    /// Samples each channel has had.
    private var counts: [Int]
    /// The first channel's sample count at which the next reading is due.
    private var nextReading: Double
    private let hamming: [Double]

    /// `sampleRate`: at least 90 Hz (the gamma band's top, 44 Hz, under Nyquist's).
    public init(sensors: Int = 4, sampleRate: Int = Self.sampleRate) {
        precondition(sampleRate >= 90)
        self.sampleRate = sampleRate
        channels = Array(repeating: [], count: sensors)
        counts = Array(repeating: 0, count: sensors)
        nextReading = Double(sampleRate)
        hamming = Self.hamming(sampleRate)
    }

    /// Adds `samples` (µV) of sensor `channel`; a reading when one is due (every tenth of a
    /// second of the slowest sensor's samples, once each has a window).
    public mutating func add(_ samples: [Double], channel: Int) -> Reading? {
        guard channel >= 0 && channel < channels.count else { return nil }
        channels[channel] = Array((channels[channel] + samples).suffix(window))
        counts[channel] += samples.count
        guard let slowest = counts.min(), Double(slowest) >= nextReading else { return nil }
        nextReading += Double(sampleRate) / Self.updatesPerSecond
        var absolute: [EEGBand: Double] = [:], relative: [EEGBand: Double] = [:]
        for samples in channels {
            let powers = Self.bandSums(samples, window: hamming, sampleRate: sampleRate)
            let total = powers.values.reduce(0, +)
            for (band, power) in powers {
                absolute[band, default: 0] += log10(power) / Double(channels.count)
                relative[band, default: 0] += (total > 0 ? power / total : 0) / Double(channels.count)
            }
        }
        return Reading(absolute: absolute, relative: relative)
    }

    /// The power spectral density of one 256-sample window at 256 Hz summed over each band's bins (µV²/Hz).
    public static func bandSums(_ samples: [Double]) -> [EEGBand: Double] {
        bandSums(samples, window: museHamming, sampleRate: sampleRate)
    }

    /// The same for a second's window at `sampleRate` (`hamming` is its window).
    static func bandSums(_ samples: [Double], window hamming: [Double], sampleRate: Int) -> [EEGBand: Double] {
        let window = sampleRate
        precondition(samples.count == window && hamming.count == window)
        let mean = samples.reduce(0, +) / Double(window)
        let windowed = zip(samples, hamming).map { ($0 - mean) * $1 }
        let windowPower = hamming.reduce(0) { $0 + $1 * $1 }
        var sums: [EEGBand: Double] = [:]
        for (band, edges) in bands {
            var sum = 0.0
            for bin in Int(edges.lowerBound.rounded(.up))..<Int(edges.upperBound.rounded(.up)) where Double(bin) >= edges.lowerBound {
                sum += density(windowed, bin: bin, sampleRate: sampleRate, windowPower: windowPower)
            }
            sums[band] = sum
        }
        return sums
    }

    /// The periodic Hamming window of `length` (scipy's `get_window('hamming', length)`).
    static func hamming(_ length: Int) -> [Double] {
        (0..<length).map { 0.54 - 0.46 * cos(2 * Double.pi * Double($0) / Double(length)) }
    }
    static let museHamming = hamming(window)

    /// One-sided density at `bin` (1 Hz a bin): 2|X|² / (fs · Σw²), the DC and Nyquist bins once.
    private static func density(_ windowed: [Double], bin: Int, sampleRate: Int, windowPower: Double) -> Double {
        let window = windowed.count
        var real = 0.0, imaginary = 0.0
        for (index, value) in windowed.enumerated() {
            let phase = 2 * Double.pi * Double(bin * index % window) / Double(window)
            real += value * cos(phase)
            imaginary -= value * sin(phase)
        }
        let twice = bin == 0 || bin == window / 2 ? 1.0 : 2.0
        return twice * (real * real + imaginary * imaginary) / (Double(sampleRate) * windowPower)
    }
}
