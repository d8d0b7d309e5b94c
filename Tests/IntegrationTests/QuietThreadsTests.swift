import Foundation
import Realtime
import TestSupport
import XCTest

/// `pulsejack run` at rest on the private server, its threads read from /proc: each is named,
/// and a thread whose reader is absent does not wake — the page's view and the meters with no
/// page and no `/meter` subscriber, the OSC thread with no datagram; with a page open the meters
/// run at 60 frames a second, and the recorder wakes for disk blocks, not on a timer.
final class QuietThreadsTests: XCTestCase {
    /// The wake-ups of each named thread over `seconds`.
    private func wakeups(of pid: Int32, over seconds: Double) -> [String: Int] {
        let before = Dictionary(ProcessThreads.of(pid).map { ($0.name, $0.wakeups) }, uniquingKeysWith: +)
        Thread.sleep(forTimeInterval: seconds)
        let after = Dictionary(ProcessThreads.of(pid).map { ($0.name, $0.wakeups) }, uniquingKeysWith: +)
        return after.reduce(into: [:]) { woken, pair in woken[pair.key] = pair.value - (before[pair.key] ?? 0) }
    }

    func testEveryThreadIsNamedAndNoneWakesForAnAbsentReader() throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("quiet")
        let take = folder.file("take.wav")
        // The click, and a dense convolution of the (silent) input, whose zita-convolver workers
        // are threads of a library's that would otherwise carry the process's name.
        let uke = Subprocess.repository.appendingPathComponent("presets/sounds/uke.wav").path
        let preset = try String(contentsOf: Subprocess.repository.appendingPathComponent("presets/click/preset.yaml"), encoding: .utf8)
            + "  - {name: room, kind: convolution, file: \(uke), input: true, gain: 0.1}\n"
        let run = try LiveWebRun(preset: preset, web: "127.0.0.1:0", server: server, arguments: ["--bpm", "73", "--record", take])
        defer { run.stop() }
        Thread.sleep(forTimeInterval: 1)
        let pid = run.processIdentifier

        checkEveryThreadIsNamed(pid)

        // At rest, nobody watching: the view and OSC threads sleep through; the meters wake only
        // to drain their ring, once in about 11 s of 256-frame periods; the recorder for its
        // 4096-frame blocks (about 12 a second at 48 kHz), not on a 50 Hz timer.
        let resting = wakeups(of: pid, over: 3)
        // The control thread: no timer at rest (the cycles' deadline stands in for the server
        // watch's), and nothing here gives it work.
        XCTAssertLessThanOrEqual(resting["pulsejack", default: -1], 1, "\(resting)")
        XCTAssertLessThanOrEqual(resting["pj-view", default: -1], 1, "\(resting)")
        XCTAssertLessThanOrEqual(resting["pj-osc", default: -1], 1, "\(resting)")
        XCTAssertEqual(resting["pj-signals", default: -1], 0, "\(resting)")
        XCTAssertLessThanOrEqual(resting["pj-meters", default: -1], 2, "\(resting)")
        XCTAssertLessThanOrEqual(resting["pj-recorder", default: -1], 3 * 15, "\(resting)")
        XCTAssertGreaterThanOrEqual(resting["pj-recorder", default: -1], 3 * 9, "\(resting)")

        // A page opens: 60 meter frames a second reach it, and the meters and view wake for them.
        let page = try WebSocketPeer(port: run.port, path: "/ws")
        let frames = LockedBox(0), reading = LockedBox(true)
        let reader = Thread {
            while reading.withLockedValue({ $0 }), let text = try? page.receiveText() {
                if text.hasPrefix("{\"type\":\"meter\"") { frames.withLockedValue { $0 += 1 } }
            }
        }
        reader.start()
        defer { reading.withLockedValue { $0 = false } }
        Thread.sleep(forTimeInterval: 1)
        let framesBefore = frames.withLockedValue { $0 }
        let watched = wakeups(of: pid, over: 3)
        let perSecond = Double(frames.withLockedValue { $0 } - framesBefore) / 3
        XCTAssertEqual(perSecond, 60, accuracy: 3, "meter frames a second with one page")
        XCTAssertGreaterThanOrEqual(watched["pj-meters", default: 0], 3 * 55, "\(watched)")
        XCTAssertGreaterThanOrEqual(watched["pj-view", default: 0], 3 * 55, "\(watched)")

        // The page closes: quiet again.
        reading.withLockedValue { $0 = false }
        page.hangUp()
        Thread.sleep(forTimeInterval: 0.5)
        let after = wakeups(of: pid, over: 2)
        XCTAssertLessThanOrEqual(after["pj-view", default: -1], 1, "\(after)")
        XCTAssertLessThanOrEqual(after["pj-meters", default: -1], 2, "\(after)")
    }

    /// Every thread says what it is: pulsejack's own `pj-…` (zita-convolver's workers and the
    /// stop signals' included), the main thread, and under their own names PipeWire's libjack's
    /// thread (`pw-<client>`) and the pool of libdispatch's that runs the pages' tasks (this
    /// run has `--web`; without it the pool does not exist).
    private func checkEveryThreadIsNamed(_ pid: pid_t) {
        let names = ProcessThreads.of(pid).map(\.name)
        for expected in ["pj-process", "pj-osc", "pj-meters", "pj-view", "pj-recorder", "pj-web-1", "pj-convolver", "pj-signals"] {
            XCTAssertTrue(names.contains(expected), "\(expected) missing from \(names)")
        }
        XCTAssertEqual(names.filter { $0 == "pulsejack" }.count, 1, "only the main thread keeps the process's name: \(names)")
        for name in names where !name.hasPrefix("pj-") && !name.hasPrefix("pw-") && name != "pulsejack" {
            XCTAssertTrue(name.hasSuffix("-qos") || name.hasSuffix("qos.overcommit"), "an unnamed thread: \(name) in \(names)")
        }
    }
}
