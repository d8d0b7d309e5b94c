import Reports
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import XCTest

/// `render --meters-plot`: Radial Audio's radial trace, read back with an XML parser.
final class MetersPlotTests: XCTestCase {
    /// Collects every element's attributes.
    private final class Elements: NSObject, XMLParserDelegate {
        var found: [(name: String, attributes: [String: String])] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            found.append((name, attributes))
        }
    }

    func testThePlotIsValidSVGWithPeakAndRMSTracesForBothChannels() throws {
        try Subprocess.requirePulsejack()
        let temporary = try TemporaryFolder("plot")
        defer { temporary.remove() }
        let folder = temporary.url
        // A click panned hard left: the left channel reaches 0 dBFS on each beat, the right stays silent.
        try "voices:\n  - {name: click, kind: click, pan: -1}\n".write(to: folder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let svg = folder.appendingPathComponent("meters.svg").path
        let result = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", folder.path,
                                                               "--session", Subprocess.repository.appendingPathComponent("presets/sessions/73bpm.csv").path,
                                                               "--out", folder.appendingPathComponent("out.wav").path, "--duration", "8",
                                                               "--meters-plot", svg, "--plot-revolution", "4"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("meters plot → \(svg)"), result.stdout)

        let parser = try XCTUnwrap(XMLParser(contentsOf: URL(fileURLWithPath: svg)))
        let elements = Elements()
        parser.delegate = elements
        XCTAssertTrue(parser.parse(), "well-formed XML: \(String(describing: parser.parserError))")
        XCTAssertEqual(elements.found.first?.name, "svg")
        XCTAssertEqual(elements.found.first?.attributes["xmlns"], "http://www.w3.org/2000/svg")
        let traces = elements.found.filter { $0.name == "polyline" }
        XCTAssertEqual(Set(traces.compactMap { t in t.attributes["data-channel"].map { "\($0) \(t.attributes["data-kind"] ?? "")" } }),
                       ["L peak", "L rms", "R peak", "R rms"])
        func radii(_ channel: String, _ kind: String) throws -> [Double] {
            let trace = try XCTUnwrap(traces.first { $0.attributes["data-channel"] == channel && $0.attributes["data-kind"] == kind })
            return try XCTUnwrap(trace.attributes["points"]).split(separator: " ").map { pair in
                let xy = pair.split(separator: ",").compactMap { Double($0) }
                return hypot(xy[0] - 400, xy[1] - 400)
            }
        }
        let leftPeak = try radii("L", "peak"), rightPeak = try radii("R", "peak")
        XCTAssertEqual(leftPeak.count, 8 * 60 + 1, "60 readings a second")
        XCTAssertEqual(leftPeak.max() ?? 0, 360, accuracy: 0.05, "0 dBFS on the outer circle")
        XCTAssertTrue(rightPeak.allSatisfy { abs($0 - 60) < 0.05 }, "the silent channel on the inner circle")
        XCTAssertGreaterThan(try radii("L", "rms").max() ?? 0, 60)
    }
}
