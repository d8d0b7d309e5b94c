import Foundation
import JackPeers
import TestSupport
import XCTest

/// `pulsejack run` against a real jackd (the private dummy-driver server `make test` starts),
/// heard by a second JACK client.
final class LiveRunTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("live").url
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func testRunAtSeventyThreeBPMPlaysImpulsesAtTheContractSpacing() throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let client = "pj-live-\(getpid())"
        let log = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--bpm", "73", "--name", client, "--no-osc",
                                                 "--preset", Subprocess.repository.appendingPathComponent("presets/click").path],
                                                server: server, output: log)
        defer { if run.isRunning { run.terminate() } }
        try Subprocess.waitForPorts(of: client, server: server)
        // Two ears, one per channel, that stamp each impulse with JACK's own frame time: a cycle
        // the ear misses on a loaded machine loses an impulse but cannot shift the others.
        let left = try CaptureClient(name: "pj-live-ear-L-\(getpid())"), right = try CaptureClient(name: "pj-live-ear-R-\(getpid())")
        try left.connect(from: "\(client):out_L")
        try right.connect(from: "\(client):out_R")
        // An impulse between the two connections reaches only the left ear (seen with two CPU hogs
        // beside the suite): compare what both could hear, from a period after both were connected.
        let bothListening = right.frameTime + 256
        usleep(5_000_000)
        left.close()
        right.close()
        run.interrupt()  // SIGINT: deactivate and close cleanly
        run.waitUntilExit()
        let output = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("stopped after"), output)

        // A cycle JACK ran without one ear (a gap in its periods, seen in CI) loses that ear the
        // impulse the other heard: compare only the frames both ears were run for.
        let gaps = left.gaps + right.gaps
        func bothHeard(_ frame: Int64) -> Bool { frame >= bothListening && !gaps.contains { $0.contains(frame) } }
        let onsets = left.onsetJackFrames.filter(bothHeard)
        XCTAssertEqual(onsets, right.onsetJackFrames.filter(bothHeard), "both channels carry the same impulses; the ears' gaps \(left.gaps), \(right.gaps)")
        XCTAssertGreaterThanOrEqual(onsets.count, 4, "5 s at 73 BPM holds at least 5 beats (one may fall in a missed cycle)")
        XCTAssertTrue(left.onsetLevels.allSatisfy { $0 == 0.89 }, "impulses at the click preset's 0.89 (−1 dBFS of headroom)")
        // The ears start at an unknown beat k0; every impulse must sit at
        // round(k·60·48000/73) − round(k0·60·48000/73) from the first, for one k0 and increasing k.
        func beat(_ k: Int) -> Int64 { Int64((2 * k * 60 * 48_000 + 73) / (2 * 73)) }
        let matches = (0..<73).filter { k0 in
            onsets.allSatisfy { onset in (0..<10).contains { j in onset - onsets[0] == beat(k0 + j) - beat(k0) } }
        }
        if LiveGrid.undisturbed(output) {
            XCTAssertFalse(matches.isEmpty, "impulse spacing \(zip(onsets.dropFirst(), onsets).map { $0 - $1 }) is not the contract's")
        } else {
            XCTAssertTrue(LiveGrid.onGrid(onsets, framesPerBeat: 60 * 48_000 / 73, output: output), "\(onsets) \(output)")
        }
    }

    func testRunWithoutAServerSaysSoInOneLineAndFails() throws {
        if TestServer.isPipeWire {
            // No PipeWire in this runtime directory (PipeWire's libjack ignores JACK_DEFAULT_SERVER).
            let empty = folder.appendingPathComponent("runtime").path
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            let result = try Subprocess.run(Subprocess.pulsejack, ["run", "--bpm", "73"],
                                            environment: ["XDG_RUNTIME_DIR": empty, "PIPEWIRE_RUNTIME_DIR": empty], timeout: 20)
            XCTAssertNotEqual(result.status, 0)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("found no PipeWire to join"), result.stderr)
            return
        }
        let result = try Subprocess.run(Subprocess.pulsejack, ["run", "--bpm", "73"],
                                        environment: ["JACK_DEFAULT_SERVER": TestServer.absentName, "JACK_NO_START_SERVER": "1"], timeout: 20)
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
