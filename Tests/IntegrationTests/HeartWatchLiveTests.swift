import Foundation
import JackPeers
import TestSupport
import XCTest

/// One watch over every heart source, live: a replayed session's tempi and a fixed `--bpm` are
/// no dropout; an OSC heart that goes quiet is one — said once, counted, its voices faded by the
/// preset's rule — until it is back.
final class HeartWatchLiveTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("hearts").url
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// `run --replay presets/default/demo-session.csv` (a tempo every 2 s) and `run --bpm 73`
    /// (no heart source at all), side by side for 6.5 s, past the 5 s dropout: neither says
    /// "no heart data", and both count 0 dropouts.
    func testAReplayedSessionAndAFixedTempoAreNoDropout() throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let replayPort = OSCEncoder.freePort(), fixedPort = OSCEncoder.freePort()
        let runs = try [
            (["--replay", Subprocess.repository.appendingPathComponent("presets/default/demo-session.csv").path], "pj-hw-replay", replayPort),
            (["--bpm", "73", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path], "pj-hw-fixed", fixedPort),
        ].map { options, name, port in
            let output = Pipe()
            let run = try Subprocess.startPulsejack(["run", "--name", name, "--osc-port", "\(port)"] + options, server: server, output: output)
            return (run, output, name, port)
        }
        defer { for (run, _, _, _) in runs where run.isRunning { run.terminate() } }
        for (_, _, name, _) in runs { XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server)) }
        usleep(6_500_000)
        for (run, output, name, port) in runs {
            let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
            run.interrupt()
            run.waitUntilExit()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(run.terminationStatus, 0, printed)
            XCTAssertFalse(printed.contains("no heart data"), "\(name): \(printed)")
            XCTAssertTrue(status.stdout.contains("\"dropouts\":0"), "\(name): \(status.stdout)")
            XCTAssertTrue(status.stdout.contains("\"dropout\":0"), "\(name): \(status.stdout)")
        }
    }

    /// An OSC heart at 150 BPM for a second, then quiet, under `dropout: {seconds: 1, action:
    /// fade, fade_seconds: 0.25}`: the run says so once, the status counts one dropout, the click
    /// fades to silence for the ear; heart data again: "back", and the click is heard again.
    func testAnOSCHeartThatGoesQuietFadesItsVoicesUntilItIsBack() throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        try """
        name: quiet-heart
        dropout: {seconds: 1, action: fade, fade_seconds: 0.25}
        voices:
          - {name: click, kind: click, gain: 0.89}
        """.write(to: folder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let port = OSCEncoder.freePort()
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", folder.path, "--name", "pj-hw-osc", "--osc-port", "\(port)"],
                                                server: server, output: output)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-hw-osc", server: server))
        let ear = try CaptureClient(name: "pj-hw-ear", threshold: 0.05)
        try ear.connect(from: "pj-hw-osc:out_L")
        for _ in 0..<5 {
            OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(150)]), port: port)
            usleep(200_000)
        }
        let spoke = ear.frameTime
        usleep(2_500_000)
        let quiet = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        let silentFrom = ear.frameTime - 48_000
        let silentTo = ear.frameTime
        for _ in 0..<8 {
            OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(150)]), port: port)
            usleep(200_000)
        }
        let back = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        let heardAgainFrom = ear.frameTime - 24_000
        let onsets = ear.onsetJackFrames
        ear.close()
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertEqual(printed.components(separatedBy: "no heart data for 1 s: fading heart-driven voices out").count, 2, printed)
        XCTAssertTrue(printed.contains("heart data is back"), printed)
        XCTAssertTrue(quiet.stdout.contains("\"dropouts\":1") && quiet.stdout.contains("\"dropout\":1"), quiet.stdout)
        XCTAssertTrue(back.stdout.contains("\"dropouts\":1") && back.stdout.contains("\"dropout\":0"), back.stdout)
        XCTAssertGreaterThanOrEqual(onsets.filter { $0 < spoke }.count, 2, "heard while the heart spoke: \(onsets)")
        XCTAssertEqual(onsets.filter { $0 >= silentFrom && $0 < silentTo }, [], "faded out in the dropout")
        XCTAssertGreaterThanOrEqual(onsets.filter { $0 >= heardAgainFrom }.count, 1, "heard again once it is back: \(onsets)")
    }
}
