import Foundation
import JackPeers
import TestSupport
import XCTest

/// jackd stops and comes back during a run: pulsejack keeps its state and sounds again by
/// itself, under the same name, with its ports (a voice's own among them) and connections restored.
final class ServerRestartTests: XCTestCase {
    func testPulsejackSoundsAgainAfterTheServerRestartsWithoutBeingRestarted() throws {
        try Subprocess.requirePulsejack()
        let jackd = try PrivateJackd.forTest(name: "pulsejack-restart")
        TestServer.use(jackd.name)
        let port = OSCEncoder.freePort()
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--bpm", "100", "--name", "pj-survivor", "--osc-port", "\(port)",
                                                 "--connect-port", "out_L=system:playback_1", "--outputs", "voices",
                                                 "--connect-port", "click_R=system:playback_2"],
                                                server: jackd.name, output: output)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-survivor", server: jackd.name))
        // A state worth keeping: the click at half gain.
        OSCEncoder.send(OSCEncoder.message("/voice/click/gain", [.float(0.5)]), port: port)
        usleep(500_000)

        jackd.stop()
        usleep(1_500_000)
        XCTAssertTrue(run.isRunning, "pulsejack outlives its server")
        try jackd.start()
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-survivor", server: jackd.name, seconds: 15), "pulsejack came back on the new server")
        usleep(500_000)
        let connections = try Subprocess.run("/usr/bin/jack_lsp", ["-c", "pj-survivor:out_L"], environment: ["JACK_DEFAULT_SERVER": jackd.name])
        XCTAssertTrue(connections.stdout.contains("system:playback_1"), "the connection is restored: \(connections.stdout)")
        let voicePort = try Subprocess.run("/usr/bin/jack_lsp", ["-c", "pj-survivor:click_R"], environment: ["JACK_DEFAULT_SERVER": jackd.name])
        XCTAssertTrue(voicePort.stdout.contains("system:playback_2"), "the voice port and its connection are back: \(voicePort.stdout)")

        let ear = try CaptureClient(name: "pj-restart-ear", threshold: 0.1)
        try ear.connect(from: "pj-survivor:out_L")
        usleep(2_500_000)
        ear.close()
        let onsets = ear.onsetJackFrames
        XCTAssertGreaterThanOrEqual(onsets.count, 3, "it sounds again")
        XCTAssertTrue(ear.onsetLevels.allSatisfy { $0 == 0.5 }, "at the gain set before the restart: \(ear.onsetLevels)")

        let printed = try assertOneReconnect(run, output: output, port: port, to: "JACK server '\(jackd.name)'")
        if LiveGrid.xruns(in: printed).xruns == 0 {
            XCTAssertTrue(zip(onsets.dropFirst(), onsets).allSatisfy { ($0 - $1) % 28_800 == 0 }, "on the heart's grid: \(onsets)")
        } else {
            XCTAssertTrue(LiveGrid.onGrid(onsets, framesPerBeat: 28_800, output: printed), "\(onsets) \(printed)")
        }
    }
}
