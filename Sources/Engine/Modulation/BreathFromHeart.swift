import Foundation
import Realtime

/// The breathing rate in a heart's RR intervals (respiratory sinus arrhythmia: the heart speeds
/// up breathing in and slows breathing out, so the intervals rise and fall at the breathing
/// frequency). The last `span` seconds of intervals, resampled evenly at 2 Hz, detrended and
/// Hann-windowed; the frequency with the most power between 6 and 30 breaths a minute (Goertzel
/// at 0.005 Hz steps), refined by a parabola through the peak and its neighbours. Fixed work:
/// at most 128 samples by 81 frequencies. Made before activation.
package final class BreathFromHeart {
    /// Seconds of intervals the estimate reads, and the least it needs.
    static let span = 64.0
    static let shortestSpan = 20.0
    static let sampleRate = 2.0
    static let lowest = 0.1, highest = 0.5, step = 0.005

    private let samples = FixedBuffer<Double>(capacity: Int(span * sampleRate), repeating: 0)
    private let powers = FixedBuffer<Double>(capacity: Int(((highest - lowest) / step).rounded()) + 1, repeating: 0)
    package init() {}

    /// Real-time safe. Breaths a minute from the most recent intervals (seconds) of a heart's ring
    /// — `count` of them, the last at `newest` — over at most `span` seconds; nil when they span
    /// less than `shortestSpan` or hold no rhythm.
    package func estimate(_ ring: borrowing FixedBuffer<Double>, newest: Int, count available: Int) -> Double? {
        @inline(__always) func interval(_ number: Int) -> Double { ring[(newest - number + ring.capacity) % ring.capacity] }
        // The most recent intervals up to the first that reaches `span` seconds back.
        var count = 0, reach = 0.0
        while count < available && reach < Self.span {
            reach += interval(count)
            count += 1
        }
        guard count >= 8 else { return nil }
        // Beat i (0: the last) is at -before seconds, where its interval ends.
        var spanned = 0.0
        for index in 0..<(count - 1) { spanned += interval(index) }
        guard spanned >= Self.shortestSpan else { return nil }
        let sampleCount = min(samples.capacity, Int(spanned * Self.sampleRate) + 1)
        var beat = 0, beatTime = 0.0
        for sample in 0..<sampleCount {
            let time = -Double(sample) / Self.sampleRate
            // The two beats around `time`: beat at beatTime ≥ time ≥ beatTime − interval(beat).
            while beat < count - 2 && beatTime - interval(beat) > time {
                beatTime -= interval(beat)
                beat += 1
            }
            let previousTime = beatTime - interval(beat)
            let fraction = (beatTime - time) / (beatTime - previousTime)
            samples[sampleCount - 1 - sample] = interval(beat) + (interval(beat + 1) - interval(beat)) * fraction
        }
        guard detrend(sampleCount) else { return nil }
        var best = 0
        for index in 0..<powers.capacity {
            powers[index] = power(at: Self.lowest + Double(index) * Self.step, count: sampleCount)
            if powers[index] > powers[best] { best = index }
        }
        var frequency = Self.lowest + Double(best) * Self.step
        if best > 0 && best < powers.capacity - 1 {
            let below = powers[best - 1], peak = powers[best], above = powers[best + 1]
            let curvature = below - 2 * peak + above
            if curvature < 0 { frequency += 0.5 * (below - above) / curvature * Self.step }
        }
        return frequency * 60
    }

    /// Real-time safe. Removes the straight line that fits best and applies a Hann window; false
    /// when nothing varies.
    private func detrend(_ n: Int) -> Bool {
        let middle = Double(n - 1) / 2
        var sum = 0.0, slopeSum = 0.0, spread = 0.0
        for index in 0..<n {
            sum += samples[index]
            slopeSum += (Double(index) - middle) * samples[index]
            spread += (Double(index) - middle) * (Double(index) - middle)
        }
        let mean = sum / Double(n), slope = spread > 0 ? slopeSum / spread : 0
        var variance = 0.0
        for index in 0..<n {
            let residual = samples[index] - mean - slope * (Double(index) - middle)
            variance += residual * residual
            samples[index] = residual * (0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(n - 1)))
        }
        return variance > 1e-12
    }

    /// Real-time safe. The power of the first `n` samples at `frequency` Hz (Goertzel).
    private func power(at frequency: Double, count n: Int) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Self.sampleRate)
        var previous = 0.0, beforePrevious = 0.0
        for index in 0..<n {
            let current = samples[index] + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }
}
