import UserFiles
import Inputs
import Foundation
import XCTest
import Realtime

/// Files and messages as an attacker or another platform writes them: each gets one clear,
/// short error or is read as meant, and nothing crashes, hangs or floods the log.
final class HostileInputTests: XCTestCase {
    private func write(_ text: String, _ name: String) -> String {
        let path = NSTemporaryDirectory() + "pulsejack-hostile-\(getpid())-\(name)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    private func error(_ body: () throws -> Void) -> InputError? {
        do { try body() } catch let error as InputError { return error } catch { XCTFail("\(error)") }
        return nil
    }

    /// Numbers no body makes, by OSC and in a session log: a signal, a pose or a band power beyond
    /// 10¹² is refused as implausible (a Float would have made 1e39 an infinity), a modulation's
    /// switch takes 0 or 1 only, and a session line's NaN or absurd value is an error at its line.
    func testAbsurdNumbersAreRefusedWhereTheyCameFrom() throws {
        let routes = OSCRoutes(voices: ["a"], signals: ["level"], modulations: 1)
        func route(_ address: String, _ arguments: [OSCMessage.Argument]) -> OSCRoutes.Outcome {
            routes.route(OSCMessage(address: address, arguments: arguments))
        }
        func isImplausible(_ outcome: OSCRoutes.Outcome) -> Bool { if case .implausible = outcome { true } else { false } }
        func isBad(_ outcome: OSCRoutes.Outcome) -> Bool { if case .badArguments = outcome { true } else { false } }
        XCTAssertTrue(isImplausible(route("/signal/level", [.float(1e38)])))
        XCTAssertTrue(isImplausible(route("/signal/level", [.float(-1e39)])))
        XCTAssertEqual(route("/signal/level", [.float(1e9)]), .events([.signal(index: 0, 1e9)]))
        XCTAssertTrue(isImplausible(route("/pose/hands", [.float(0), .float(1e20), .float(0), .float(0)])))
        XCTAssertTrue(isImplausible(route("/muse/elements/alpha_absolute", [.float(1e39)])))
        for refused in [OSCMessage.Argument.int(5), .int(-1), .float(.nan), .float(0.5)] {
            XCTAssertTrue(isBad(route("/modulation/1/enable", [refused])), "\(refused)")
        }
        XCTAssertEqual(route("/modulation/1/enable", [.int(0)]), .events([.modulationEnable(index: 0, false)]))
        XCTAssertEqual(route("/modulation/1/enable", [.float(1)]), .events([.modulationEnable(index: 0, true)]))
        XCTAssertTrue(isBad(route("/voice/a/enable", [.float(.nan)])))

        let header = "{\"pulsejack_session\":1,\"sample_rate\":48000,\"voices\":[\"a\"],\"signals\":[\"level\"]}\n"
        for (line, field) in [("{\"frame\":10,\"event\":\"signal\",\"signal\":0,\"values\":[1e38]}", "values"),
                              ("{\"frame\":10,\"event\":\"tempo\",\"bpm\":1e300}", "bpm"),
                              ("{\"frame\":10,\"event\":\"pose\",\"values\":[0,0,1e30,0]}", "values"),
                              ("{\"frame\":10,\"event\":\"insert_control\",\"voice\":0,\"stage\":0,\"port\":1,\"values\":[1e39]}", "values")] {
            let refusal = error { _ = try SessionLog.parse(header + line + "\n", path: "take.jsonl") }
            XCTAssertEqual(refusal?.line, 2, "\(line)")
            XCTAssertEqual(refusal?.field, field, "\(line): \(String(describing: refusal))")
        }
        let csv = error { _ = try HeartSession.load(path: write("time,ppg\n0,1\n0.01,1e300\n", "ppg.csv")) }
        XCTAssertEqual(csv?.line, 3)
    }

    func testCRLFAndCRSessionsReadLikeLF() throws {
        let rows = "time,bpm\n0,72\n1.5,80\n3,64\n"
        let unix = try HeartSession.load(path: write(rows, "lf.csv"))
        let windows = try HeartSession.load(path: write(rows.replacingOccurrences(of: "\n", with: "\r\n"), "crlf.csv"))
        let classic = try HeartSession.load(path: write(rows.replacingOccurrences(of: "\n", with: "\r"), "cr.csv"))
        XCTAssertEqual(unix.entries.count, 3)
        XCTAssertEqual(windows.entries, unix.entries)
        XCTAssertEqual(classic.entries, unix.entries)
        let log = "{\"pulsejack_session\":1,\"sample_rate\":48000,\"voices\":[\"a\"]}\r\n{\"frame\":10,\"event\":\"tempo\",\"bpm\":70}\r\n"
        XCTAssertEqual(try SessionLog.parse(log, path: "log").messages, [ControlMessage(frame: 10, .tempo(bpm: 70))])
    }

    func testAnErrorAboutAHugeLineIsShort() throws {
        let line = String(repeating: "x,", count: 600_000)
        let failure = try XCTUnwrap(error { _ = try HeartSession.load(path: write(line + "\n0,72\n", "wide.csv")) })
        XCTAssertEqual(failure.line, 1)
        XCTAssertLessThan(failure.description.count, 500, "not the whole line: \(failure.description.prefix(200))")
    }

    func testTimesPastADayAreAnErrorAtTheirLine() throws {
        let far = try XCTUnwrap(error { _ = try HeartSession.load(path: write("time,bpm\n0,70\n2e14,72\n", "far.csv")) })
        XCTAssertEqual(far.line, 3)
        XCTAssertTrue(far.message.contains("24 h"), far.description)
        let long = try XCTUnwrap(error { _ = try HeartSession.load(path: write("time,bpm\n0,70\n1e12,72\n", "long.csv")) })
        XCTAssertEqual(long.line, 3)
        XCTAssertNoThrow(try HeartSession.load(path: write("time,bpm\n0,70\n86400,72\n", "day.csv")))
        for year in ["1900", "9999"] {
            let json = """
            {"items":[
              {"value":72,"unit":"count/min","startDate":"2015-10-08T22:53:59-0700"},
              {"value":75,"unit":"count/min","startDate":"\(year)-10-08T22:54:04-0700"}
            ]}
            """
            let failure = try XCTUnwrap(error { _ = try HeartSession.load(path: write(json, "hk-\(year).json")) })
            XCTAssertEqual(failure.field, "items[\(year == "1900" ? 0 : 1)].startDate", failure.description)
            XCTAssertNotNil(failure.line)
        }
        let log = "{\"pulsejack_session\":1,\"sample_rate\":48000,\"voices\":[]}\n{\"frame\":9600000000000000,\"event\":\"heartbeat\"}\n"
        XCTAssertEqual(try XCTUnwrap(error { _ = try SessionLog.parse(log, path: "log") }).line, 2)
    }

    func testAFIFOIsRefusedNotReadForever() throws {
        let fifo = NSTemporaryDirectory() + "pulsejack-hostile-\(getpid())-fifo"
        unlink(fifo)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let failure = try XCTUnwrap(error { _ = try HeartSession.load(path: fifo) })
        XCTAssertTrue(failure.message.contains("a FIFO"), failure.description)
    }

    func testRepeatedWarningsAreHeldBackAndCounted() {
        let clock = LockedBox(0.0)
        let limiter = WarningLimiter(now: { clock.withLockedValue { $0 } })
        var said: [String] = []
        for line in 1...10_000 {
            if let text = limiter.admit("rows.csv:\(line): bpm nan rejected") { said.append(text) }
        }
        XCTAssertEqual(said, ["rows.csv:1: bpm nan rejected"])
        XCTAssertEqual(limiter.heldBack().map(\.count), [9_999])
        clock.withLockedValue { $0 += 1 }
        XCTAssertEqual(limiter.admit("rows.csv:10001: bpm nan rejected"), "rows.csv:10001: bpm nan rejected (9999 more like this held back)")
        XCTAssertEqual(LogLine.clipped(String(repeating: "/a", count: 30_000)).count, LogLine.maximumLength + "… (59700 more characters)".count)
    }
}
