import BodySignals
import Foundation
import XCTest

final class PPGBeatDetectorTests: XCTestCase {
    /// A synthetic pulse wave: each beat a fast systolic rise and slow fall, plus a dicrotic
    /// bump, on a wandering baseline with noise. Returns the samples and the upstroke times.
    private func pulseWave(rate: Double, seconds: Double, noise: Double, wander: Double, seed: UInt64) -> ([Double], [Double]) {
        var state = seed
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var beats: [Double] = []
        var time = 0.5
        while time < seconds - 1 {
            beats.append(time)
            time += 0.6 + 0.5 * uniform()  // 67–120 BPM, irregular
            // No beat starts close to the end of the detector's learning (1.5 s), so every beat
            // is clearly before or after it.
            if time > 1.3 && time < 1.6 { time = 1.6 }
        }
        let count = Int(seconds * rate)
        var samples = [Double](repeating: 0, count: count)
        for index in 0..<count {
            let t = Double(index) / rate
            var value = wander * sin(2 * .pi * 0.15 * t) + 0.3 * wander * sin(2 * .pi * 0.04 * t + 1)
            for beat in beats where t >= beat && t < beat + 1.2 {
                let since = t - beat
                value += (since < 0.12 ? since / 0.12 : exp(-(since - 0.12) / 0.2))          // rise, then fall
                value += 0.25 * exp(-pow((since - 0.38) / 0.04, 2))                          // dicrotic bump
            }
            // Gaussian noise from two uniforms (Box–Muller).
            value += noise * sqrt(-2 * log(max(uniform(), 1e-12))) * cos(2 * .pi * uniform())
            samples[index] = value
        }
        return (samples, beats)
    }

    func testFindsEveryBeatAndInventsNoneThroughNoiseAndBaselineWander() {
        for (noise, wander, seed) in [(0.0, 0.0, UInt64(1)), (0.03, 0.5, 2), (0.05, 1.0, 3)] {
            let rate = 100.0
            var (samples, beats) = pulseWave(rate: rate, seconds: 120, noise: noise, wander: wander, seed: seed)
            var detector = PPGBeatDetector(sampleRate: rate)
            var found: [Double] = []
            for (index, sample) in samples.enumerated() where detector.process(sample) {
                found.append(Double(index) / rate)
            }
            // The detector learns for 1.5 s and reports nothing then: count from the first beat after.
            beats = beats.filter { $0 > 1.5 }
            // Each true beat must have exactly one detection within 100 ms after its onset
            // (the upstroke lasts 120 ms), and no detection may be unmatched.
            XCTAssertEqual(found.count, beats.count, "noise \(noise), wander \(wander)")
            for (got, want) in zip(found, beats) {
                XCTAssertGreaterThanOrEqual(got, want, "noise \(noise): detected before the beat")
                XCTAssertLessThanOrEqual(got - want, 0.1, "noise \(noise): beat at \(want) found at \(got)")
            }
            XCTAssertNotNil(detector.bpm)
        }
    }
}

final class BeatPredictorTests: XCTestCase {
    func testPredictsTheNextBeatFromTheMedianInterval() {
        var predictor = BeatPredictor()
        XCTAssertNil(predictor.observe(beatAt: 0))
        XCTAssertNil(predictor.observe(beatAt: 40_000))
        XCTAssertEqual(predictor.observe(beatAt: 80_000), 120_000)
        // One missed detection (an interval twice as long) does not throw the median off.
        XCTAssertEqual(predictor.observe(beatAt: 160_000), 200_000)
        XCTAssertEqual(predictor.observe(beatAt: 200_000), 240_000)
        // A slowing heart: the prediction follows.
        for frame in stride(from: 250_000, through: 500_000, by: 50_000) { _ = predictor.observe(beatAt: Int64(frame)) }
        XCTAssertEqual(predictor.observe(beatAt: 550_000), 600_000)
    }
}
