import Inputs
import Foundation
import TestSupport
import XCTest
import Realtime

/// The page's WebSocket from a raw client (`WebSocketPeer`), against `pulsejack run --web` on the
/// private jackd: who may connect, what breaking the rules costs, and eight pages in step.
final class WebSocketTests: XCTestCase {
    private var run: LiveWebRun?

    override func tearDown() { run?.stop() }

    private static let preset = "bpm: 120\nvoices:\n  - {name: pulse, kind: click}\n  - {name: pad, kind: click, on_beat: false}\n"

    /// Reads messages until `match` says stop; the messages read.
    private func read(_ peer: WebSocketPeer, until match: ([String: Any]) -> Bool) throws -> [[String: Any]] {
        var seen: [[String: Any]] = []
        while let text = try peer.receiveText() {
            let message = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            seen.append(message)
            if match(message) { return seen }
        }
        XCTFail("the connection ended before the awaited message")
        return seen
    }

    /// The web server's and engine's counters, from a fresh page's status (refreshed 4 times a second).
    private func webStatus(port: Int, token: String?, until condition: ([String: Double]) -> Bool) throws -> [String: Double] {
        let peer = try WebSocketPeer(port: port, path: "/ws" + (token.map { "?token=\($0)" } ?? ""))
        var last: [String: Double] = [:]
        let end = Date().addingTimeInterval(10)
        while Date() < end, let text = try peer.receiveText() {
            guard let message = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let state = message["state"] as? [String: Any], let status = state["status"] as? [String: Any] else { continue }
            last = status.compactMapValues { ($0 as? NSNumber)?.doubleValue }
            if condition(last) { return last }
        }
        return last
    }

    func testBeyondLoopbackTheTokenAndTheOriginAreRequiredAndBadMessagesAreCountedAndClosed() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        if TestServer.isPipeWire { throw XCTSkip("10,000 connections to the page, the same on every server: the jackd2 pass runs this") }
        let run = try LiveWebRun(preset: Self.preset, web: "0.0.0.0:0", server: server)
        self.run = run
        let (port, printed) = (run.port, run.token)
        let token = try XCTUnwrap(printed, "a token is made and printed when bound beyond loopback")
        XCTAssertEqual(token.count, 32)

        try checkTheDoors(port: port, token: token)
        // The page's own origin: a snapshot first.
        let page = try WebSocketPeer(port: port, path: "/ws?token=\(token)", origin: "http://127.0.0.1:\(port)")
        let snapshot = try XCTUnwrap(try page.receiveText())
        XCTAssertTrue(snapshot.hasPrefix("{\"type\":\"snapshot\""), snapshot)

        try sendTenThousandBadMessages(port: port, token: token)

        // A 70 kB command (beyond one 64 KiB frame of the library's default): closed with 1009 and counted.
        let large = try WebSocketPeer(port: port, path: "/ws?token=\(token)")
        try large.send(opcode: 1, payload: Array(repeating: UInt8(ascii: "x"), count: 70_000))
        var largeClose = 0
        while let frame = try large.receive() {
            if case .close(let code) = frame { largeClose = code; break }
        }
        XCTAssertEqual(largeClose, 1009)
        XCTAssertEqual(try webStatus(port: port, token: token) { ($0["web_oversized"] ?? 0) >= 2501 }["web_oversized"], 2501)
        // `/ws` without an upgrade is no page (426); a request with two Host fields is refused (400).
        XCTAssertEqual(try WebSocketPeer.get(port: port, path: "/ws?token=\(token)"), 426)
        XCTAssertEqual(try PlainHTTP.request("GET", port: port, path: "/?token=\(token)", headers: ["host": "127.0.0.1:\(port)"]).status, 400)

        // Faster than 100 messages a second (past the burst of 200): closed, counted.
        let flooder = try WebSocketPeer(port: port, path: "/ws?token=\(token)")
        for index in 0..<400 { try? flooder.send(text: "{\"type\":\"ping\",\"t\":\(index)}") }
        var flooderClose = 0
        while let frame = try flooder.receive() {
            if case .close(let code) = frame { flooderClose = code; break }
        }
        XCTAssertEqual(flooderClose, 1008)

        // The engine, unharmed: still running, still beating, nothing invalid reached it.
        XCTAssertTrue(run.isRunning)
        let beats = try run.status()["beats"] ?? 0
        usleep(1_100_000)
        let after = try run.status()
        XCTAssertGreaterThanOrEqual((after["beats"] ?? 0) - beats, 2, "120 BPM keeps beating: \(after)")
        XCTAssertEqual(after["invalid_messages"], 0)
        XCTAssertEqual(try webStatus(port: port, token: token) { ($0["web_rate_limited"] ?? 0) >= 1 }["web_rate_limited"], 1)
    }

    /// The page and the WebSocket: no token or a wrong one → 401; another site's page (its
    /// Origin) → 403, even with the token.
    private func checkTheDoors(port: Int, token: String) throws {
        // The page: no token or a wrong one → 401.
        XCTAssertEqual(try WebSocketPeer.get(port: port, path: "/"), 401)
        XCTAssertEqual(try WebSocketPeer.get(port: port, path: "/?token=0123"), 401)
        XCTAssertEqual(try WebSocketPeer.get(port: port, path: "/?token=\(token)"), 200)
        // The WebSocket: 401 without the token, no upgrade.
        for path in ["/ws", "/ws?token=wrong\(token)"] {
            XCTAssertThrowsError(try WebSocketPeer(port: port, path: path, origin: "http://127.0.0.1:\(port)")) { error in
                XCTAssertEqual((error as? WebSocketPeer.Refused)?.status, 401)
            }
        }
        // Another site's page (its Origin) → 403, even with the token.
        XCTAssertThrowsError(try WebSocketPeer(port: port, path: "/ws?token=\(token)", origin: "http://evil.example")) { error in
            XCTAssertEqual((error as? WebSocketPeer.Refused)?.status, 403)
        }
    }

    /// 10,000 malformed or oversized messages, each closing its connection, four clients at a
    /// time: each closed with its code, each counted.
    private func sendTenThousandBadMessages(port: Int, token: String) throws {
        // 10,000 malformed or oversized messages, each closing its connection, four clients at a time.
        let kinds: [(opcode: UInt8, payload: [UInt8])] = [
            (1, Array("{\"type\":\"control\",\"address\":".utf8)),  // broken JSON
            (1, Array("{\"type\":\"format-disk\"}".utf8)),  // no such command
            (2, [0, 1, 2, 3]),  // binary
            (1, Array(repeating: UInt8(ascii: "x"), count: 5000)),  // over 4096 bytes
        ]
        let closes = LockedBox([Int: Int]())
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for index in 0..<2500 {
                let kind = kinds[(worker + index) % kinds.count]
                guard let peer = try? WebSocketPeer(port: port, path: "/ws?token=\(token)") else { continue }
                try? peer.send(opcode: kind.opcode, payload: kind.payload)
                var code = 0
                while let frame = try? peer.receive() {
                    if case .close(let closeCode) = frame { code = closeCode; break }
                }
                closes.withLockedValue { $0[code, default: 0] += 1 }
            }
        }
        let codes = closes.withLockedValue { $0 }
        XCTAssertEqual(codes.values.reduce(0, +), 10_000)
        XCTAssertEqual(codes[1003], 7500, "broken JSON, unknown commands and binary close with 1003: \(codes)")
        XCTAssertEqual(codes[1009], 2500, "oversized closes with 1009: \(codes)")
        let counted = try webStatus(port: port, token: token) { ($0["web_malformed"] ?? 0) + ($0["web_oversized"] ?? 0) >= 10_000 }
        XCTAssertEqual(counted["web_malformed"], 7500, "\(counted)")
        XCTAssertEqual(counted["web_oversized"], 2500)
        XCTAssertEqual(counted["web_unauthorized"], 4, "two pages and two sockets without the token")
        XCTAssertEqual(counted["web_foreign_origin"], 1)
    }

    func testEightPagesStayInStepWithOSCAndWithEachOther() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        let run = try LiveWebRun(preset: Self.preset, web: "127.0.0.1:0", server: server)
        self.run = run
        let (port, token, osc) = (run.port, run.token, run.osc)
        XCTAssertNil(token, "no token on loopback")
        // A name that is not this machine's: refused (another site rebinding its name to 127.0.0.1).
        XCTAssertEqual(try WebSocketPeer.get(port: port, path: "/", host: "rebound.example:\(port)"), 403)
        XCTAssertThrowsError(try WebSocketPeer(port: port, path: "/ws", host: "rebound.example:\(port)"))

        // Each page keeps its own copy of the state: the snapshot, then every delta.
        let pages = try (0..<8).map { _ in try WebSocketPeer(port: port, path: "/ws", origin: "http://127.0.0.1:\(port)") }
        var states = [[String: Any]](repeating: [:], count: pages.count)
        func apply(_ message: [String: Any], to page: Int) {
            guard let state = message["state"] as? [String: Any] else { return }
            states[page].merge(state) { $1 }
        }
        // Caught up: reading until a meter frame sent after now.
        func catchUp() throws {
            let now = Date().timeIntervalSince1970 * 1000
            for (index, page) in pages.enumerated() {
                for message in try read(page, until: { ($0["type"] as? String) == "meter" && ($0["t"] as? Double ?? 0) > now }) {
                    apply(message, to: index)
                }
            }
        }
        try catchUp()
        // A change over OSC, and one from the first page: every page sees both, each within the
        // meter frames that follow it.
        let sent = Date().timeIntervalSince1970 * 1000
        OSCEncoder.send(OSCEncoder.message("/voice/pulse/gain", [.float(0.3)]), port: osc)
        try pages[0].send(text: "{\"type\":\"control\",\"address\":\"/voice/pad/rate\",\"args\":[3,2]}")
        var framesBefore: [Int] = []
        for (index, page) in pages.enumerated() {
            var frames = 0
            _ = try read(page) { message in
                if (message["type"] as? String) == "meter", (message["t"] as? Double ?? 0) > sent { frames += 1 }
                apply(message, to: index)
                let pulse = states[index]["voice.0"] as? [String: Any], pad = states[index]["voice.1"] as? [String: Any]
                return (pulse?["gain"] as? NSNumber)?.doubleValue == 0.3 && (pad?["every"] as? NSNumber)?.intValue == 3
                    && (pad?["subdivision"] as? NSNumber)?.intValue == 2
            }
            framesBefore.append(frames)
        }
        // The frame being built when a change lands may leave without it; the next one has it.
        XCTAssertTrue(framesBefore.allSatisfy { $0 <= 2 }, "meter frames before the change showed, per page: \(framesBefore)")
        try catchUp()
        let reference = try JSONSerialization.data(withJSONObject: states[0].filter { $0.key != "status" }, options: .sortedKeys)
        for index in 1..<pages.count {
            let state = try JSONSerialization.data(withJSONObject: states[index].filter { $0.key != "status" }, options: .sortedKeys)
            XCTAssertEqual(String(decoding: state, as: UTF8.self), String(decoding: reference, as: UTF8.self), "page \(index + 1)")
        }
        // What the engine has (its own status) is what the pages show.
        XCTAssertEqual((states[0]["bpm"] as? NSNumber)?.doubleValue, try run.status()["bpm"])
    }

}
