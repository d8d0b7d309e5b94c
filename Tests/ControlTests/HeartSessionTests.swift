import Control
import Foundation
import XCTest

final class HeartSessionTests: XCTestCase {
    private func write(_ text: String, _ name: String) -> String {
        let path = NSTemporaryDirectory() + "pulsejack-\(getpid())-\(name)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    func testCSVTempoWithCommentsAndRejectedRates() throws {
        let path = write("# a comment\ntime,bpm\n0,72\n\n1.5, 80\n2,0\n3,nan\n4,301\n5,60\n", "tempo.csv")
        let session = try HeartSession.load(path: path)
        XCTAssertEqual(session.entries.map(\.time), [0, 1.5, 5])
        XCTAssertEqual(session.entries.map(\.event), [.tempo(bpm: 72), .tempo(bpm: 80), .tempo(bpm: 60)])
        XCTAssertEqual(session.rejections.map(\.place), ["\(path):6", "\(path):7", "\(path):8"])
    }

    func testCSVBeatsWithStrength() throws {
        let session = try HeartSession.load(path: write("time,beat\n0.5\n1.0,0.25\n", "beats.csv"))
        XCTAssertEqual(session.entries.map(\.event), [.beat(strength: 1), .beat(strength: 0.25)])
    }

    func testHealthKitExportTimesAreFromTheFirstStartDate() throws {
        let json = """
        {"items":[
          {"value":72,"unit":"count/min","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2015-10-08T22:53:59-0700","endDate":"2015-10-08T22:53:59-0700"},
          {"value":75,"unit":"count/min","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2015-10-08T22:54:04-0700","endDate":"2015-10-08T22:54:04-0700"},
          {"value":80,"unit":"count/min","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2015-10-09T05:54:10Z","endDate":"2015-10-09T05:54:10Z"}
        ]}
        """
        let session = try HeartSession.load(path: write(json, "hk.json"))
        XCTAssertEqual(session.entries.map(\.time), [0, 5, 11])
        XCTAssertEqual(session.entries.map(\.event), [.tempo(bpm: 72), .tempo(bpm: 75), .tempo(bpm: 80)])
    }

    func testMalformedFilesNameTheFileAndLine() {
        let cases: [(String, String, String)] = [
            ("time,bpm\n0,72\n1,fast\n", "bad.csv", ":3: bpm 'fast' is not a number"),
            ("when,bpm\n0,72\n", "header.csv", ":1: expected the header row"),
            ("time,bpm\n0,72,9\n", "fields.csv", ":2: expected 2 fields"),
            ("time,bpm\n-1,72\n", "time.csv", ":2: time '-1' is not a number of seconds"),
            ("", "empty.csv", "the session file is empty"),
            ("{\"items\":[\n{\"value\":72,\"startDate\":\"2015-10-08T22:53:59-0700\"},\n{\"value\":\"x\",\"startDate\":\"2015-10-08T22:53:59-0700\"}]}",
             "type.json", ":3: items[1].value: expected a number"),
            ("{\"items\":[\n{\"value\":72,\"startDate\":\"yesterday\"}]}", "date.json", ":2: items[0].startDate: 'yesterday' is not a date"),
            ("{\"items\": [", "broken.json", "not valid JSON"),
        ]
        for (text, name, expected) in cases {
            let path = write(text, name)
            XCTAssertThrowsError(try HeartSession.load(path: path), name) { error in
                let message = "\(error)"
                XCTAssertTrue(message.hasPrefix(path), "\(name): \(message)")
                XCTAssertTrue(message.contains(expected), "\(name): '\(message)' lacks '\(expected)'")
            }
        }
        XCTAssertThrowsError(try HeartSession.load(path: "/nonexistent/session.csv")) { error in
            XCTAssertEqual("\(error)", "/nonexistent/session.csv: cannot read the session file (missing or unreadable)")
        }
    }
}
