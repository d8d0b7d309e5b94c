import Foundation
import JackPeers
import Realtime
import TestSupport
import XCTest

/// A stop that meets a dying or stopped server (a studio shutting down, a logout, a suspended
/// machine) must still end, with the take whole: libjack's close can wait for ever on a server
/// that will never answer, so pulsejack finishes its files first and gives the close a deadline.
final class DyingServerStopTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("dying").url
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// jackd and pulsejack sent SIGTERM together, twenty times: every run exits within 5 s, and
    /// every take's header says exactly the length of the data behind it. Four servers take five
    /// attempts each side by side (most of an attempt is waiting for jackd to start and to die),
    /// each attempt with its own delay between the ports appearing and the signals.
    func testServerAndPulsejackTerminatedTogetherExitWithAWholeTakeEveryTime() throws {
        try TestServer.requireJackd2("the test starts jackd servers of its own")
        let lanes = 4, attempts = 5
        let problems = LockedBox([String]()), folder = self.folder!
        JoinedThreads.run(lanes) { lane in
            do {
                let jackd = try PrivateJackd(name: "pulsejack-dying-\(lane + 1)")
                defer { jackd.stop() }
                for round in 0..<attempts {
                    let attempt = round * lanes + lane + 1
                    if let problem = try Self.terminateTogether(jackd, attempt: attempt, folder: folder) {
                        problems.withLockedValue { $0.append(problem) }
                        break
                    }
                }
            } catch {
                problems.withLockedValue { $0.append("server \(lane + 1): \(error)") }
            }
        }
        XCTAssertEqual(problems.withLockedValue { $0 }, [])
    }

    /// One attempt: the server (started if it is not running) and a recording run, signalled
    /// together 230–800 ms after the run's ports appear. What went wrong, or nil.
    private static func terminateTogether(_ jackd: PrivateJackd, attempt: Int, folder: URL) throws -> String? {
        try jackd.start()
        let wav = folder.appendingPathComponent("take-\(attempt).wav").path
        let name = "pj-dying-\(attempt)"
        let (run, output) = try startProcess(recordingTo: wav, name: name, on: jackd)
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        guard try Subprocess.waitForPorts(of: name, server: jackd.name) else { return "attempt \(attempt): no ports" }
        usleep(useconds_t(200_000 + 30_000 * attempt))
        guard let server = jackd.processIdentifier else { return "attempt \(attempt): jackd died early" }
        kill(server, SIGTERM)
        kill(run.processIdentifier, SIGTERM)
        guard waitForExit(run, seconds: 5) else { return "attempt \(attempt): pulsejack still runs 5 s after SIGTERM beside its server's" }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard jackd.waitForExit() else { return "attempt \(attempt): jackd did not exit" }
        guard run.terminationStatus == 0 else { return "attempt \(attempt): exit status \(run.terminationStatus): \(printed)" }
        return try wholeTakeProblem(wav, printed: printed, attempt: attempt)
    }

    /// A stopped server (SIGSTOP: hung, or its machine suspended) never answers the client's
    /// close: pulsejack gives up on it, says so, and exits within 5 s with the take finished.
    func testATerminatedRunWhoseServerIsStoppedExitsWithAWholeTake() throws {
        let jackd = try PrivateJackd.forTest(name: "pulsejack-stopped")
        defer {
            if let server = jackd.processIdentifier { kill(server, SIGCONT) }
            jackd.stop()
        }
        let wav = folder.appendingPathComponent("take.wav").path
        let (run, output) = try startRecording(to: wav, name: "pj-stopped", on: jackd)
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        usleep(1_000_000)
        kill(try XCTUnwrap(jackd.processIdentifier), SIGSTOP)
        run.terminate()
        XCTAssertTrue(Self.waitForExit(run, seconds: 5), "pulsejack still runs 5 s after SIGTERM with its server stopped")
        guard !run.isRunning else { return }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertTrue(printed.contains("did not let the client go"), "the abandoned close is said: \(printed)")
        try Self.assertWholeTake(wav, printed: printed, attempt: 1)
        XCTAssertGreaterThan(try Self.dataFrames(wav), 24_000, "the second before the stop is in the take")
    }

    /// `run` of the click preset recording to `wav`, its ports up on `jackd`.
    private func startRecording(to wav: String, name: String, on jackd: PrivateJackd) throws -> (Process, Pipe) {
        let started = try Self.startProcess(recordingTo: wav, name: name, on: jackd)
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: jackd.name), "\(name)'s ports")
        return started
    }

    private static func startProcess(recordingTo wav: String, name: String, on jackd: PrivateJackd) throws -> (Process, Pipe) {
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--bpm", "120", "--no-osc", "--name", name, "--record", wav],
                                                server: jackd.name, output: output)
        return (run, output)
    }

    private static func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date() + seconds
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }

    /// The take's `data` chunk, as its header declares it, ends exactly where the file does, and
    /// holds the frames the stop line reports.
    private static func assertWholeTake(_ path: String, printed: String, attempt: Int) throws {
        if let problem = try wholeTakeProblem(path, printed: printed, attempt: attempt) { XCTFail(problem) }
    }

    private static func wholeTakeProblem(_ path: String, printed: String, attempt: Int) throws -> String? {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let (offset, size) = dataChunk(bytes) else { return "attempt \(attempt): no data chunk in \(path)" }
        guard offset + size == bytes.count else {
            return "attempt \(attempt): the header's data size \(size) at \(offset) does not match the file's length \(bytes.count)"
        }
        let reported = printed.components(separatedBy: "recorded ").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) }
        guard reported == size / 8 else {
            return "attempt \(attempt): the stop line reports \(reported.map(String.init) ?? "no") frames, the file holds \(size / 8) stereo 32-bit float frames: \(printed)"
        }
        return nil
    }

    private static func dataFrames(_ path: String) throws -> Int {
        try XCTUnwrap(dataChunk(Data(contentsOf: URL(fileURLWithPath: path)))).size / 8
    }

    /// Where the RIFF file's `data` chunk starts and its declared size (walking the chunks).
    private static func dataChunk(_ bytes: Data) -> (offset: Int, size: Int)? {
        func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF" else { return nil }
        var at = 12
        while at + 8 <= bytes.count {
            let id = String(decoding: bytes[at..<at + 4], as: UTF8.self), size = word(at + 4)
            if id == "data" { return (at + 8, size) }
            at += 8 + size + (size & 1)
        }
        return nil
    }
}
