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
        let (run, output, port) = try startClickAtHalfGain("pj-survivor", bpm: 100, on: jackd, [
            "--connect-port", "out_L=system:playback_1", "--outputs", "voices", "--connect-port", "click_R=system:playback_2",
        ])
        defer { if run.isRunning { run.terminate() } }
        guard try restart(jackd, under: run, output: output, name: "pj-survivor") else { return }
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

    /// jackd stops and comes back at 44.1 kHz: pulsejack reconnects, rebuilds its engine at the
    /// new rate and plays 120 BPM as 120 BPM — beats 22,050 frames apart for a JACK ear — at the
    /// gain set before, its recording on in a 44.1 kHz take.
    func testAServerBackAtAnotherRateIsFollowed() throws {
        try Subprocess.requirePulsejack()
        let jackd = try PrivateJackd.forTest(name: "pulsejack-rerate")
        TestServer.use(jackd.name)
        let folder = try TemporaryFolder("rerate").url
        defer { try? FileManager.default.removeItem(at: folder) }
        let take = folder.appendingPathComponent("take.wav").path
        let (run, output, port) = try startClickAtHalfGain("pj-rerate", bpm: 120, on: jackd, ["--record", take])
        defer { if run.isRunning { run.terminate() } }
        guard try restart(jackd, under: run, output: output, name: "pj-rerate", atRate: 44_100) else { return }
        let ear = try CaptureClient(name: "pj-rerate-ear", threshold: 0.1)
        try ear.connect(from: "pj-rerate:out_L")
        usleep(3_000_000)
        ear.close()
        let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        for said in ["\"sample_rate\":44100", "\"engine_rate\":44100", "\"rate_changes\":1", "\"reconnects\":1"] {
            XCTAssertTrue(status.stdout.contains(said), "\(said) missing: \(status.stdout)")
        }
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertTrue(printed.contains("now at 44100 Hz (was 48000 Hz)"), printed)
        let onsets = ear.onsets
        XCTAssertGreaterThanOrEqual(onsets.count, 4, "it sounds again: \(onsets)")
        if LiveGrid.xruns(in: printed).xruns == 0 {
            XCTAssertEqual(Set(zip(onsets.dropFirst(), onsets).map { $0 - $1 }), [22_050], "120 BPM at 44.1 kHz: \(onsets)")
        }
        XCTAssertTrue(ear.onsetLevels.allSatisfy { $0 == 0.5 }, "at the gain set before the restart: \(ear.onsetLevels)")
        let second = try WavFile(path: folder.appendingPathComponent("take-2.wav").path)
        XCTAssertEqual(second.sampleRate, 44_100)
        XCTAssertTrue(printed.contains("recorded \(second.frameCount) frames to \(folder.appendingPathComponent("take-2.wav").path)"), printed)
    }

    /// The shipped click at `bpm` as `name` on `jackd`, with a state worth keeping: half gain.
    private func startClickAtHalfGain(_ name: String, bpm: Int, on jackd: PrivateJackd,
                                      _ extra: [String]) throws -> (run: Process, output: Pipe, port: UInt16) {
        let port = OSCEncoder.freePort()
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--bpm", "\(bpm)", "--name", name, "--osc-port", "\(port)"] + extra,
                                                server: jackd.name, output: output)
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: jackd.name))
        OSCEncoder.send(OSCEncoder.message("/voice/click/gain", [.float(0.5)]), port: port)
        usleep(700_000)
        return (run, output, port)
    }

    /// Stops `jackd` under the run, starts it again (at `rate`, or as it was), and waits for the
    /// run's ports to be back on it. Not back (false): the run is stopped, and the failure says
    /// what it and the new server printed.
    private func restart(_ jackd: PrivateJackd, under run: Process, output: Pipe, name: String, atRate rate: Int? = nil) throws -> Bool {
        jackd.stop()
        usleep(1_200_000)
        XCTAssertTrue(run.isRunning, "pulsejack outlives its server")
        if let rate { jackd.sampleRate = rate }
        try jackd.start()
        guard try Subprocess.waitForPorts(of: name, server: jackd.name, seconds: 15) else {
            let ports = try Subprocess.run("/usr/bin/jack_lsp", [], environment: ["JACK_DEFAULT_SERVER": jackd.name])
            run.interrupt()
            run.waitUntilExit()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTFail("pulsejack came back on the new server: its ports \(ports.stdout) \(ports.stderr); pulsejack printed \(printed); jackd \(jackd.recentOutput)")
            return false
        }
        return true
    }
}
