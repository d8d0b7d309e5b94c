import Reports
import Foundation
import XCTest
@testable import Engine

/// The meters against the formulas they claim: dBFS, a peak meter's 20 dB in 1.7 s fall and a
/// 300 ms RMS integration, period by period.
final class MeterTests: XCTestCase {
    private func block(_ left: [Float], _ right: [Float]) -> MeterBlock {
        MeterBlock.measure(left: left, right: right, frames: left.count)
    }

    func testABlockMeasuresPeakAndSquaresPerChannel() {
        let measured = block([0.5, -0.75, 0.25, 0], [0, 0, 0, -1])
        XCTAssertEqual(measured.peakLeft, 0.75)
        XCTAssertEqual(measured.peakRight, 1)
        XCTAssertEqual(measured.squaresLeft, 0.25 + 0.5625 + 0.0625)
        XCTAssertEqual(measured.squaresRight, 1)
    }

    /// The block against a plain sample-by-sample loop (the formula), on noise with NaN and ±Inf
    /// in both channels, at lengths that end on and off its four-frame steps.
    func testABlockEqualsTheSampleBySampleFormulaWithNonFiniteSamplesLeftOut() {
        var generator = SystemRandomNumberGenerator()
        for frames in [0, 1, 3, 4, 7, 64, 255, 256, 1024] {
            var left = (0..<frames).map { _ in Float.random(in: -1...1, using: &generator) }
            var right = (0..<frames).map { _ in Float.random(in: -0.3...0.3, using: &generator) }
            for index in stride(from: 5, to: frames, by: 37) { left[index] = .nan }
            for index in stride(from: 2, to: frames, by: 53) { right[index] = index % 2 == 0 ? .infinity : -.infinity }
            var peak = (Float(0), Float(0)), squares = (0.0, 0.0), nonFinite = 0
            for (l, r) in zip(left, right) {
                for (sample, channel) in [(l, 0), (r, 1)] {
                    guard sample.isFinite else { nonFinite += 1; continue }
                    if channel == 0 { peak.0 = max(peak.0, abs(sample)); squares.0 += Double(sample * sample) }
                    else { peak.1 = max(peak.1, abs(sample)); squares.1 += Double(sample * sample) }
                }
            }
            let measured = block(left, right)
            XCTAssertEqual(measured.peakLeft, peak.0, "\(frames) frames")
            XCTAssertEqual(measured.peakRight, peak.1, "\(frames) frames")
            XCTAssertEqual(Double(measured.squaresLeft), squares.0, accuracy: 1e-5 * max(squares.0, 1), "\(frames) frames")
            XCTAssertEqual(Double(measured.squaresRight), squares.1, accuracy: 1e-5 * max(squares.1, 1), "\(frames) frames")
            XCTAssertEqual(Int(measured.nonFinite), nonFinite, "\(frames) frames")
            XCTAssertEqual(Int(measured.frames), frames)
        }
    }

    func testASteadySineReadsItsPeakAndMinusThreeDecibelsRMS() {
        var ballistics = MeterBallistics(sampleRate: 48_000)
        // A full-scale 1 kHz sine in the left channel, a 0.1 one in the right, for 3 s (10 time constants).
        for period in 0..<(3 * 48_000 / 256) {
            let left = (0..<256).map { Float(sin(2 * Double.pi * 1000 * Double(period * 256 + $0) / 48_000)) }
            ballistics.add(block(left, left.map { $0 * 0.1 }))
        }
        let reading = ballistics.reading
        XCTAssertEqual(reading.peakLeft, 0, accuracy: 0.01)
        XCTAssertEqual(reading.rmsLeft, Float(10 * log10(0.5)), accuracy: 0.01)  // −3.01 dBFS
        XCTAssertEqual(reading.peakRight, -20, accuracy: 0.01)
        XCTAssertEqual(reading.rmsRight, Float(10 * log10(0.005)), accuracy: 0.01)
    }

    func testAfterAnImpulseThePeakFallsLinearlyAndTheRMSDecaysExponentially() {
        var ballistics = MeterBallistics(sampleRate: 48_000)
        let silence = [Float](repeating: 0, count: 256)
        var impulse = silence
        impulse[0] = 1
        ballistics.add(block(impulse, silence))
        XCTAssertEqual(ballistics.reading.peakLeft, 0)
        XCTAssertEqual(ballistics.reading.peakRight, MeterBallistics.floor)
        let meanSquareAfterImpulse = pow(10, Double(ballistics.reading.rmsLeft) / 10)
        for periods in 1...150 {
            ballistics.add(block(silence, silence))
            let seconds = Double(periods * 256) / 48_000
            // Peak: 20 dB in 1.7 s, linearly in dB, from 0 dBFS.
            XCTAssertEqual(Double(ballistics.reading.peakLeft), -20 / 1.7 * seconds, accuracy: 1e-3)
            // RMS: the mean square decays with the 300 ms time constant.
            let expected = 10 * log10(meanSquareAfterImpulse * exp(-seconds / 0.3))
            XCTAssertEqual(Double(ballistics.reading.rmsLeft), expected, accuracy: 1e-3)
        }
    }

    func testTheFloorHoldsSilence() {
        var ballistics = MeterBallistics(sampleRate: 48_000)
        ballistics.add(block([0, 0], [0, 0]))
        XCTAssertEqual(ballistics.reading.values, [MeterBallistics.floor, MeterBallistics.floor, MeterBallistics.floor, MeterBallistics.floor])
    }

    func testThePlotSamplesSixtyTimesASecondAndPlacesLevelsOnTheirCircle() {
        var plot = MetersPlot(sampleRate: 48_000, secondsPerRevolution: 4)
        let loud = [Float](repeating: 1, count: 256), silence = [Float](repeating: 0, count: 256)
        for _ in 0..<(2 * 48_000 / 256) { plot.add(left: loud, right: silence, frames: 256) }
        XCTAssertEqual(plot.points.count, 120 + 1, "60 a second from time 0, over 2 s")
        XCTAssertEqual(plot.points[60].seconds, 1, accuracy: 1e-9)
        // A quarter of a 4 s revolution is 3 o'clock: at 0 dBFS, the outer radius to the right.
        let p = plot.position(seconds: 1, level: 0)
        XCTAssertEqual(p.x, 400 + 360, accuracy: 1e-9)
        XCTAssertEqual(p.y, 400, accuracy: 1e-9)
        XCTAssertEqual(MetersPlot.radius(-60), 60)
        XCTAssertEqual(MetersPlot.radius(-200), 60, "below the floor: on the inner circle")
    }
}
