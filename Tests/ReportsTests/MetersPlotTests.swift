import Foundation
import Reports
import XCTest

/// Radial Audio's trace built in process from known samples, against the plot's geometry written
/// out here: time clockwise from the top, one revolution per `secondsPerRevolution`, −60 dBFS on
/// the inner circle (60) and 0 dBFS on the outer (360), around the centre (400, 400).
final class MetersPlotTests: XCTestCase {
    private func plot(seconds: Double, revolution: Double, left: (Int) -> Float, right: (Int) -> Float) -> MetersPlot {
        var plot = MetersPlot(sampleRate: 48_000, secondsPerRevolution: revolution)
        let period = 256
        var l = [Float](repeating: 0, count: period), r = l
        for start in stride(from: 0, to: Int(seconds * 48_000), by: period) {
            for i in 0..<period { (l[i], r[i]) = (left(start + i), right(start + i)) }
            plot.add(left: l, right: r, frames: period)
        }
        return plot
    }

    func testSixtyReadingsASecondOnTheirFramesAndTheRadiusOfALevel() {
        let plot = plot(seconds: 2, revolution: 4, left: { $0 % 48_000 == 0 ? 1 : 0 }, right: { _ in 0 })
        // The nth reading at round(n·48000/60) frames: 0, 800, 1600 … through 2 s (the last period's end).
        XCTAssertEqual(plot.points.count, 121)
        for (n, point) in plot.points.enumerated() { XCTAssertEqual(point.seconds, Double(n * 800) / 48_000, accuracy: 1e-12) }
        XCTAssertEqual(MetersPlot.radius(0), 360)
        XCTAssertEqual(MetersPlot.radius(-60), 60)
        XCTAssertEqual(MetersPlot.radius(-30), 210, accuracy: 1e-9, "linear in dB between the circles")
        XCTAssertEqual(MetersPlot.radius(6), 360, "clamped at full scale")
        XCTAssertEqual(MetersPlot.radius(-200), 60, "clamped at the floor")
        // A full-scale click at frame 0: the first reading's left peak is at 0 dBFS; the right is silent throughout.
        XCTAssertEqual(plot.points[0].reading.peakLeft, 0, accuracy: 1e-4)
        XCTAssertTrue(plot.points.allSatisfy { $0.reading.peakRight <= MetersPlot.floor })
    }

    func testEachPointSitsWhereTheGeometrySays() throws {
        let tone: (Int) -> Float = { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        let plot = plot(seconds: 3, revolution: 2, left: tone, right: { _ in 0 })
        let elements = try XCTUnwrap(XMLElements.read(plot.svg), "well-formed SVG")
        let peak = try XCTUnwrap(elements.first { $0.attributes["data-channel"] == "L" && $0.attributes["data-kind"] == "peak" })
        let coordinates = try XCTUnwrap(peak.attributes["points"]).split(separator: " ").map { $0.split(separator: ",").compactMap { Double($0) } }
        XCTAssertEqual(coordinates.count, plot.points.count)
        for (point, xy) in zip(plot.points, coordinates) {
            let angle = 2 * Double.pi * point.seconds / 2
            let r = 60 + (Double(min(max(point.reading.peakLeft, -60), 0)) + 60) / 60 * 300
            XCTAssertEqual(xy[0], 400 + r * sin(angle), accuracy: 0.006)
            XCTAssertEqual(xy[1], 400 - r * cos(angle), accuracy: 0.006)
        }
        // A sine of amplitude 0.5 settles at −6.02 dBFS peak: past the first reading, near that circle.
        let settled = plot.points.dropFirst(30).map(\.reading.peakLeft)
        XCTAssertEqual(Double(settled.max() ?? 0), 20 * log10(0.5), accuracy: 0.05)
    }
}
