import Foundation
@testable import Engine
import Reports
import XCTest

/// `render --web-report`: one XHTML page read back by an XML parser — the heart-rate curve from
/// the applied tempos, one mark per fired voice at its frame's place on the timeline, and names
/// that need escaping still well-formed.
final class WebReportTests: XCTestCase {
    private func report() -> WebReport {
        var report = WebReport(title: "take <1> & \"2\"", sampleRate: 48_000, frames: 480_000, voiceNames: ["kick", "<snare>"],
                               meters: MetersPlot(sampleRate: 48_000, secondsPerRevolution: 10))
        report.tempos = [(0, 60), (96_000, 90), (240_000, 72)]
        report.fired = [FiredVoice(frame: 0, voice: 0, velocity: 1), FiredVoice(frame: 48_000, voice: 1, velocity: 0.5),
                        FiredVoice(frame: 479_999, voice: 0, velocity: 0), FiredVoice(frame: 1000, voice: 7, velocity: 1)]
        return report
    }

    func testThePageIsWellFormedWithEveryFiringAtItsFrame() throws {
        let report = report()
        let elements = try XCTUnwrap(XMLElements.read(report.html), "well-formed XHTML despite the names")
        XCTAssertEqual(elements.first?.name, "html")
        let marks = elements.filter { $0.attributes["class"] == "fired" }
        // A firing of a voice the report does not name (7) is left out.
        XCTAssertEqual(marks.compactMap { $0.attributes["data-frame"] }, ["0", "48000", "479999"])
        XCTAssertEqual(marks.compactMap { $0.attributes["data-voice"] }, ["kick", "<snare>", "kick"])
        for mark in marks {
            let frame = try XCTUnwrap(Double(mark.attributes["data-frame"] ?? ""))
            // The timeline runs from x = 60 to 60 + (960 − 80) over the whole render.
            XCTAssertEqual(Double(mark.attributes["x1"] ?? "") ?? -1, 60 + 880 * frame / 480_000, accuracy: 0.006)
        }
        let opacities = marks.compactMap { Double($0.attributes["stroke-opacity"] ?? "") }
        XCTAssertEqual(opacities, [1, 0.65, 0.3], "softer firings are fainter: 0.3 + 0.7 × velocity")
    }

    func testTheHeartRateCurveHoldsEachTempoToTheNext() throws {
        let report = report()
        let elements = try XCTUnwrap(XMLElements.read(report.html))
        let curve = try XCTUnwrap(elements.first { $0.name == "polyline" && $0.attributes["class"] == "bpm" })
        let points = try XCTUnwrap(curve.attributes["points"]).split(separator: " ").map { $0.split(separator: ",").compactMap { Double($0) } }
        XCTAssertEqual(points.count, 6, "two points a tempo: where it starts and where the next takes over")
        let xs = points.map { $0[0] }, ys = points.map { $0[1] }
        XCTAssertEqual(xs, [60, 236, 236, 500, 500, 940].map(Double.init), "frames 0, 96000, 240000 and the end on the timeline")
        XCTAssertEqual(ys[0], ys[1])
        XCTAssertLessThan(ys[2], ys[0], "90 BPM higher on the page than 60")
        // The axis spans the tempos ± 5 BPM over 160 px from y = 20: 60 at the bottom edge, 90 at the top.
        XCTAssertEqual(ys[0], 20 + 160 * (95 - 60) / 40, accuracy: 0.06)
        XCTAssertEqual(ys[2], 20 + 160 * (95 - 90) / 40, accuracy: 0.06)
        XCTAssertEqual(elements.first { $0.attributes["id"] == "bpm" }?.attributes["data-tempos"], "3")
    }
}
