import Foundation

/// A second-order band-pass (the audio EQ cookbook's, 0 dB at its centre): the QRS complex's
/// 5–20 Hz, without the baseline's wander or the mains' hum. Sensor thread.
struct BandPass: Sendable {
    private let b0: Double, a1: Double, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(low: Double, high: Double, sampleRate: Double) {
        let centre = (low * high).squareRoot()
        let omega = 2 * Double.pi * centre / sampleRate
        let alpha = sin(omega) / (2 * centre / (high - low))
        b0 = alpha / (1 + alpha)
        a1 = -2 * cos(omega) / (1 + alpha)
        a2 = (1 - alpha) / (1 + alpha)
    }

    mutating func callAsFunction(_ x: Double) -> Double {
        let y = b0 * (x - x2) - a1 * y1 - a2 * y2
        (x2, x1, y2, y1) = (x1, x, y1, y)
        return y
    }

    /// `samples` filtered forwards and then backwards: no phase shift, so a peak stays where it was.
    func zeroPhase(_ samples: ArraySlice<Double>) -> [Double] {
        var forwards = self.fresh, backwards = self.fresh
        let once = samples.map { forwards($0) }
        return once.reversed().map { backwards($0) }.reversed()
    }

    private var fresh: BandPass {
        var copy = self
        (copy.x1, copy.x2, copy.y1, copy.y2) = (0, 0, 0, 0)
        return copy
    }
}
