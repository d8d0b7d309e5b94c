import Foundation
import TestSupport
import XCTest

/// A recording outlives its process: `run --record` killed outright (SIGKILL: no handler, no
/// close) leaves a WAV a reader of our own opens, with all but its last second (and the last
/// disk block), its clicks on the tempo's grid.
final class KilledTakeTests: XCTestCase {
    func testATakeKilledBySIGKILLIsReadableWithAllButItsLastSecond() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        if TestServer.isPipeWire { throw XCTSkip("the take's file is written the same on every server: the jackd2 pass runs this") }
        let folder = try TemporaryFolder("killed-take")
        defer { folder.remove() }
        let name = "pj-killed-\(getpid())"
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path, "--name", name,
                                                 "--no-osc", "--bpm", "120", "--record", folder.file("take.wav")], server: server)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server))
        // The take has begun once its first block is on disk (its header, 112 bytes, comes first).
        for _ in 0..<100 where ((try? FileManager.default.attributesOfItem(atPath: folder.file("take.wav"))[.size] as? Int) ?? 0) < 4096 {
            usleep(10_000)
        }
        let started = Date()
        Thread.sleep(forTimeInterval: 3)
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        let lived = Date().timeIntervalSince(started)
        XCTAssertEqual(run.terminationReason, .uncaughtSignal)

        let take = try WavFile(path: folder.file("take.wav"))
        let seconds = Double(take.channels[0].count) / Double(take.sampleRate)
        // The header is at most a second of audio behind the file, and the file at most one disk
        // block (4096 frames) behind the engine.
        XCTAssertGreaterThanOrEqual(seconds, lived - 1 - 4096.0 / 48_000, "the take holds \(seconds) s of the \(lived) s it ran")
        // 120 BPM: a click every 24 000 frames.
        let clicks = WavFile.onsets(take.channels[0], threshold: 0.5)
        XCTAssertGreaterThanOrEqual(clicks.count, 4, "\(clicks)")
        for (earlier, later) in zip(clicks, clicks.dropFirst()) { XCTAssertEqual(later - earlier, 24_000) }
    }
}
