import Foundation
import JackPeers
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

    /// jackd and pulsejack sent SIGTERM together, twenty times in a row: every run exits within
    /// 5 s, and every take's header says exactly the length of the data behind it.
    func testServerAndPulsejackTerminatedTogetherExitWithAWholeTakeEveryTime() throws {
        let jackd = try PrivateJackd.forTest(name: "pulsejack-dying")
        for attempt in 1...20 {
            try jackd.start()
            let wav = folder.appendingPathComponent("take-\(attempt).wav").path
            let (run, output) = try startRecording(to: wav, name: "pj-dying", on: jackd)
            defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
            usleep(useconds_t(200_000 + 30_000 * attempt))
            let server = try XCTUnwrap(jackd.processIdentifier)
            kill(server, SIGTERM)
            kill(run.processIdentifier, SIGTERM)
            let exited = Self.waitForExit(run, seconds: 5)
            let printed = exited ? String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
            XCTAssertTrue(exited, "attempt \(attempt): pulsejack still runs 5 s after SIGTERM beside its server's")
            XCTAssertTrue(jackd.waitForExit(), "attempt \(attempt): jackd exits")
            guard exited else { break }
            XCTAssertEqual(run.terminationStatus, 0, "attempt \(attempt): \(printed)")
            try Self.assertWholeTake(wav, printed: printed, attempt: attempt)
        }
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
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--bpm", "120", "--no-osc", "--name", name, "--record", wav],
                                                server: jackd.name, output: output)
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: jackd.name), "\(name)'s ports")
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
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let (offset, size) = try XCTUnwrap(dataChunk(bytes), "attempt \(attempt): no data chunk in \(path)")
        XCTAssertEqual(offset + size, bytes.count, "attempt \(attempt): the header's data size matches the file's length")
        let reported = printed.components(separatedBy: "recorded ").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) }
        XCTAssertEqual(reported, size / 8, "attempt \(attempt): stereo 32-bit float frames, as the stop line says: \(printed)")
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
