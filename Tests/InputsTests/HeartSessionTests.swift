import Inputs
import Foundation
import XCTest
import Realtime

/// Writes `text` to a temporary file named after `name`; returns its path.
private func write(_ text: String, _ name: String) -> String {
    let path = NSTemporaryDirectory() + "pulsejack-\(getpid())-\(name)"
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

final class HeartSessionTests: XCTestCase {
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
            ("when,bpm\n0,72\n", "header.csv", ":1: expected a header row: time,alpha"),
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

final class SessionFormatsTests: XCTestCase {
    func testRRPoseAndBandLayouts() throws {
        let rr = try HeartSession.load(path: write("time,rr\n0.8,0.8\n1.6,0.8\n2,3.0\n", "rr.csv"))
        XCTAssertEqual(rr.entries.map(\.event), [.rr(seconds: 0.8), .rr(seconds: 0.8)])
        XCTAssertEqual(rr.rejections.count, 1, "an RR of 3 s is no heart")
        let pose = try HeartSession.load(path: write("time,lx,ly,rx,ry\n0.1,-0.5,0.9,0.4,0.1\n", "pose.csv"))
        XCTAssertEqual(pose.entries.first?.event, .pose(leftX: -0.5, leftY: 0.9, rightX: 0.4, rightY: 0.1))
        let bands = try HeartSession.load(path: write("time,alpha,beta,delta,theta,gamma\n0,0.6,0.2,0.1,0.3,0.05\n", "bands.csv"))
        XCTAssertEqual(bands.entries.first?.event, .bands(alpha: 0.6, beta: 0.2, delta: 0.1, theta: 0.3, gamma: 0.05))
        XCTAssertThrowsError(try HeartSession.load(path: write("time,alpha,beta,delta,theta,gamma\n0,2,0,0,0,0\n", "bad.csv"))) {
            XCTAssertTrue("\($0)".contains("bad.csv:2: band powers are numbers in 0…1"), "\($0)")
        }
    }

    func testSessionLogRoundTripsEveryReplayableMessage() throws {
        let messages: [ControlMessage] = [
            ControlMessage(frame: 0, .tempo(bpm: 72.5)), ControlMessage(frame: 10, .heartbeat(strength: 0.5)),
            ControlMessage(frame: 20, .voiceTrigger(voice: 2, velocity: 0.25)),
            ControlMessage(frame: 30, .voiceParameter(voice: 1, .gain(0.5))), ControlMessage(frame: 30, .voiceParameter(voice: 1, .pan(-1))),
            ControlMessage(frame: 30, .voiceParameter(voice: 1, .enable(false))),
            ControlMessage(frame: 30, .voiceParameter(voice: 1, .rate(BeatRate(everyNthBeat: 3, subdivision: 2)))),
            ControlMessage(frame: 40, .regionHit(region: 4, velocity: 1)), ControlMessage(frame: 50, .modeChange(.playing)),
            ControlMessage(frame: 60, .pose(leftX: 0.5, leftY: -0.25, rightX: 0, rightY: 1)),
            ControlMessage(frame: 70, .bandPower(.gamma, 0.1)), ControlMessage(frame: 80, .pose(leftX: 0.3, leftY: 1e-7, rightX: -2.1, rightY: 0.7)),
            ControlMessage(frame: 90, .rrIntervals(RRIntervals([820, 1, 65_535])!)), ControlMessage(frame: 95, .rrIntervals(RRIntervals([])!)),
        ]
        var text = SessionLog.headerLine(.init(sample_rate: 48_000, voices: ["a", "b", "c"])) + "\n"
        text += messages.compactMap(SessionLog.line(for:)).joined(separator: "\n") + "\n" + SessionLog.endLine(frame: 96_000) + "\n"
        let parsed = try SessionLog.parse(text, path: "log.jsonl")
        XCTAssertEqual(parsed.messages, messages)
        XCTAssertEqual(parsed.endFrame, 96_000)
        XCTAssertEqual(parsed.header.voices, ["a", "b", "c"])
        XCTAssertThrowsError(try SessionLog.parse(text + "{\"frame\":5,\"event\":\"tuba\"}\n", path: "log.jsonl")) {
            XCTAssertEqual("\($0)", "log.jsonl:17: event: unknown event 'tuba'")
        }
        // Floats as their own shortest digits; RR intervals exactly, in seconds.
        XCTAssertTrue(text.contains("\"values\":[0.1]"), text)
        XCTAssertTrue(text.contains("\"values\":[0.80078125,0.0009765625,63.9990234375]"), text)
        for bad in ["[0.8]", "[0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5]", "[-0.5]", "[64]"] {
            XCTAssertThrowsError(try SessionLog.parse(text + "{\"frame\":5,\"event\":\"rr\",\"values\":\(bad)}\n", path: "log.jsonl"), bad) {
                XCTAssertTrue("\($0)".hasPrefix("log.jsonl:17: values: RR intervals are at most 9 values in seconds"), "\($0)")
            }
        }
    }
}
