import Foundation
import JackPeers
import TestSupport
import XCTest

/// Another client freewheels the graph (a DAW's export), and a server that keeps no metadata.
final class FreewheelAndMetadataTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("freewheel").url
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// jackd2 runs the whole graph as fast as it can while another client freewheels it, faster
    /// than a disk thread drains the recorder's ring (237,568 frames were lost so from a 10-second
    /// one): the recorder waits in freewheel, and the take holds every frame the engine rendered.
    /// A 50 ms ring here, so that freewheel outruns the disk thread on any machine.
    func testATakeRecordedWhileAnotherClientFreewheelsKeepsEveryFrame() throws {
        try TestServer.requireJackd2("PipeWire's jack_set_freewheel moves only the caller's own node group")
        let jackd = try PrivateJackd.forTest(name: "pulsejack-freewheel")
        let wav = folder.appendingPathComponent("take.wav").path
        let port = OSCEncoder.freePort()
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--bpm", "120", "--osc-port", "\(port)", "--name", "pj-freewheel", "--record", wav,
                                                 "--record-buffer", "0.05"],
                                                server: jackd.name, output: output)
        defer { if run.isRunning { run.terminate() } }
        let started = Date()
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-freewheel", server: jackd.name))
        let on = try Subprocess.run("/usr/bin/jack_freewheel", ["y"], environment: ["JACK_DEFAULT_SERVER": jackd.name])
        XCTAssertEqual(on.status, 0, on.stderr)
        usleep(1_500_000)
        let during = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        let off = try Subprocess.run("/usr/bin/jack_freewheel", ["n"], environment: ["JACK_DEFAULT_SERVER": jackd.name])
        XCTAssertEqual(off.status, 0, off.stderr)
        usleep(300_000)
        run.interrupt()
        let realTime = Int(Date().timeIntervalSince(started) * 48_000)
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertTrue(during.stdout.contains("\"freewheel\":1"), "the status says freewheel: \(during.stdout)")
        let processed = try XCTUnwrap(printed.components(separatedBy: "stopped after ").dropFirst().first?
            .split(separator: " ").first.flatMap { Int($0) }, printed)
        // The disk paces the graph now, still well ahead of the wall clock.
        XCTAssertGreaterThan(processed, realTime + 24_000, "freewheel ran the graph faster than real time: \(printed)")
        XCTAssertTrue(printed.contains("recorded \(processed) frames to \(wav)"), "every frame in the take, none lost: \(printed)")
        let reading = try IndependentWav.read(wav)
        XCTAssertEqual(reading.soxFrames, processed, "sox reads the whole take")
    }

    /// PipeWire without a session manager has no `default` metadata object: the run says
    /// `metadata unavailable` once, and the status shows it. (A PipeWire of the test's own, in a
    /// runtime directory of its own, without wireplumber.)
    func testMetadataThatCannotBeWrittenIsSaidOnceAndShownInTheStatus() throws {
        try TestServer.requirePipeWire("jackd2 always keeps metadata")
        let runtime = folder.appendingPathComponent("runtime").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let environment = ["XDG_RUNTIME_DIR": runtime, "PIPEWIRE_RUNTIME_DIR": runtime]
        let pipewire = Process()
        Subprocess.keepForTheSuite(pipewire)
        pipewire.executableURL = URL(fileURLWithPath: "/usr/bin/pipewire")
        pipewire.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        pipewire.standardOutput = FileHandle.nullDevice
        pipewire.standardError = FileHandle.nullDevice
        try pipewire.run()
        defer {
            pipewire.terminate()
            pipewire.waitUntilExit()
        }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: runtime + "/pipewire-0") { usleep(100_000) }
        let port = OSCEncoder.freePort()
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--osc-port", "\(port)", "--name", "pj-plain"],
                                                server: "default", output: output, environment: environment)
        defer { if run.isRunning { run.terminate() } }
        var status = ""
        for _ in 0..<50 {
            usleep(200_000)
            status = (try? Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"]).stdout) ?? ""
            if status.contains("\"metadata\"") { break }
        }
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(status.contains("\"metadata\":\"unavailable\""), status)
        XCTAssertEqual(printed.components(separatedBy: "metadata unavailable").count - 1, 1, "said once: \(printed)")
    }
}
