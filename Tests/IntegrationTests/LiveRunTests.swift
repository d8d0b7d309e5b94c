import Foundation
import TestSupport
import XCTest

/// `pulsejack run` against a real jackd (the private dummy-driver server `make test` starts),
/// recorded by a real peer, jack_capture.
final class LiveRunTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pulsejack-live-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func testRunAtSeventyThreeBPMPlaysImpulsesAtTheContractSpacing() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        guard let capture = Subprocess.which("jack_capture") else { return XCTFail("jack_capture is not installed (make test installs it)") }
        let client = "pj-live-\(getpid())"
        let log = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--bpm", "73", "--name", client, "--no-osc",
                                                 "--preset", Subprocess.repository.appendingPathComponent("presets/click").path],
                                                server: server, output: log)
        defer { if run.isRunning { run.terminate() } }
        try Subprocess.waitForPorts(of: client, server: server)
        let wav = folder.appendingPathComponent("capture.wav").path
        let recorded = try Subprocess.run(capture, ["-d", "5", "-c", "2", "-p", "\(client):out_L", "-p", "\(client):out_R", "--daemon", wav],
                                          environment: ["JACK_DEFAULT_SERVER": server])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        run.interrupt()  // SIGINT: deactivate and close cleanly
        run.waitUntilExit()
        let output = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("stopped after"), output)

        let audio = try WavFile(path: wav)
        XCTAssertEqual(audio.sampleRate, 48_000)
        let onsets = WavFile.onsets(audio.channels[0])
        XCTAssertEqual(onsets, WavFile.onsets(audio.channels[1]), "both channels carry the same impulses")
        XCTAssertGreaterThanOrEqual(onsets.count, 5, "5 s at 73 BPM holds at least 5 beats")
        XCTAssertTrue(onsets.allSatisfy { audio.channels[0][$0] == 1.0 }, "unit impulses")
        // The recording starts at an unknown beat k0; the impulses must sit at
        // round(k·60·48000/73) − round(k0·60·48000/73) for one k0 (the pattern repeats every 73 beats).
        func beat(_ k: Int) -> Int { (2 * k * 60 * 48_000 + 73) / (2 * 73) }
        let matches = (0..<73).filter { k0 in
            onsets.enumerated().allSatisfy { j, onset in onset - onsets[0] == beat(k0 + j) - beat(k0) }
        }
        XCTAssertFalse(matches.isEmpty, "impulse spacing \(zip(onsets.dropFirst(), onsets).map { $0 - $1 }) is not the contract's")
    }

    func testRunWithoutAServerSaysSoInOneLineAndFails() throws {
        let result = try Subprocess.run(Subprocess.pulsejack, ["run", "--bpm", "73"],
                                        environment: ["JACK_DEFAULT_SERVER": TestServer.absentName, "JACK_NO_START_SERVER": "1"])
        XCTAssertNotEqual(result.status, 0)
        let errorLines = result.stderr.split(separator: "\n")
        XCTAssertEqual(errorLines.count, 1, "one line, without libjack's own messages: \(result.stderr)")
        XCTAssertTrue(errorLines.first?.contains("no JACK server '\(TestServer.absentName)' is running") == true, result.stderr)
        XCTAssertTrue(errorLines.first?.contains("jackd -d dummy") == true, "it says how to start one")
    }

    func testRunRejectsAnImpossibleBPM() throws {
        for bad in ["0", "-3", "301", "nan", "inf"] {
            let result = try Subprocess.run(Subprocess.pulsejack, ["run", "--bpm", bad])
            XCTAssertNotEqual(result.status, 0, bad)
            XCTAssertTrue(result.stderr.contains("is not a heart rate") || result.stderr.contains("--bpm"), "\(bad): \(result.stderr)")
        }
    }
}
