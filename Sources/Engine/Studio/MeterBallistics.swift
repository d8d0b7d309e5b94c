import Foundation

/// Meter ballistics on per-period levels, in dBFS:
/// - peak: instant attack, falling 20 dB in 1.7 s (IEC 60268-10 type I programme meter);
/// - RMS: the mean square integrated with a 300 ms time constant (the VU meter's integration time).
/// Levels below `floor` read as `floor`.
public struct MeterBallistics: Sendable {
    public static let floor: Float = -120
    /// The quietest level a radial trace draws (its inner circle), dBFS: the page's and the plot's.
    public static let displayFloor: Float = -60
    public static let peakFallPerSecond: Float = 20 / 1.7
    public static let rmsTimeConstant = 0.3

    public struct Reading: Sendable, Equatable {
        public var peakLeft: Float, rmsLeft: Float, peakRight: Float, rmsRight: Float
        /// Non-finite samples measured so far.
        public var nonFiniteSamples = 0
        public var values: [Float] { [peakLeft, rmsLeft, peakRight, rmsRight] }
    }

    public let sampleRate: Int
    private var peak: (Float, Float) = (floor, floor)
    private var meanSquare: (Double, Double) = (0, 0)
    private var nonFinite = 0

    public init(sampleRate: Int) { self.sampleRate = sampleRate }

    public static func decibels(amplitude: Float) -> Float {
        amplitude > 0 ? max(floor, 20 * log10(amplitude)) : floor
    }

    public static func decibels(meanSquare: Double) -> Float {
        meanSquare > 0 ? max(floor, Float(10 * log10(meanSquare))) : floor
    }

    /// Adds one period's levels.
    public mutating func add(_ block: MeterBlock) {
        guard block.frames > 0 else { return }
        nonFinite += Int(block.nonFinite)
        let seconds = Double(block.frames) / Double(sampleRate)
        let fall = Self.peakFallPerSecond * Float(seconds)
        func follow(_ shown: Float, _ amplitude: Float) -> Float {
            let level = Self.decibels(amplitude: amplitude)
            return level >= shown ? level : max(level, shown - fall)
        }
        peak = (follow(peak.0, block.peakLeft), follow(peak.1, block.peakRight))
        let weight = 1 - exp(-seconds / Self.rmsTimeConstant)
        let frames = Double(block.frames)
        meanSquare.0 += (Double(block.squaresLeft) / frames - meanSquare.0) * weight
        meanSquare.1 += (Double(block.squaresRight) / frames - meanSquare.1) * weight
    }

    public var reading: Reading {
        Reading(peakLeft: peak.0, rmsLeft: Self.decibels(meanSquare: meanSquare.0),
                peakRight: peak.1, rmsRight: Self.decibels(meanSquare: meanSquare.1), nonFiniteSamples: nonFinite)
    }
}
