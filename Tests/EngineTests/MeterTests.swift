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
