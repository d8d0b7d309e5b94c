import Foundation
import JackPeers
import TestSupport
import XCTest

/// What PipeWire does that jackd2 does not, on `make test`'s PipeWire pass (its libjack, a
/// private headless PipeWire that `scripts/with-private-pipewire.sh` keeps running).
final class PipeWireTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try TestServer.requirePipeWire("PipeWire's own quantum and daemon (jackd2's pass has PeriodChangeTests and ServerRestartTests)")
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("pipewire").url
    }

    override func tearDownWithError() throws {
        guard TestServer.isPipeWire else { return }
        if let folder { try? FileManager.default.removeItem(at: folder) }
        // The harness's quantum for whatever runs next.
        try TestServer.forcePipeWire("clock.force-quantum", 256)
    }

    /// PipeWire runs no JACK client in the first cycle of a new quantum. Through ten quantum
    /// changes between 64 and 2048 frames under a 300-BPM click on four pulses a beat, every pulse
    /// sounds on its contract frame in JACK's frame time, as a capture client places it; a pulse
    /// due in a cycle PipeWire ran for no client sounds at the first frame after it, and the
    /// status counts exactly those.
    func testTenQuantumChangesKeepEveryPulseOnItsFrameOrTheNextCycle() throws {
        let port = OSCEncoder.freePort()
        let (run, output) = try startFourPulseClick(name: "pj-quantum", port: port, server: "default", folder: folder)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-quantum", server: "default"))
        let ear = try CaptureClient(name: "pj-quantum-ear")
        try ear.connect(from: "pj-quantum:out_L")
        usleep(300_000)
        let listening = ear.frameTime
        for size in [2048, 64, 2048, 64, 2048, 64, 2048, 64, 2048, 512] {
            try TestServer.forcePipeWire("clock.force-quantum", size)
            usleep(400_000)
        }
        let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        ear.close()
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertTrue(status.stdout.contains("\"period\":512"), status.stdout)
        XCTAssertTrue(status.stdout.contains("\"period_changes\":10"), status.stdout)

        let onsets = ear.onsetJackFrames.filter { $0 >= listening }
        let gaps = ear.gaps
        XCTAssertGreaterThan(onsets.count, 70, "4 s of pulses every 2,400 frames: \(onsets.count) heard")
        XCTAssertFalse(gaps.isEmpty, "PipeWire ran cycles for no client at the changes")
        // The grid's phase: the one most onsets share (those after a gap may be late).
        let phases = Dictionary(grouping: onsets) { $0 % 2400 }
        let phase = try XCTUnwrap(phases.max { $0.value.count < $1.value.count }?.key)
        var late = 0
        for onset in onsets where onset % 2400 != phase {
            // Late only as a pulse due inside an unrun cycle, at the first frame after it.
            let due = onset - (onset - phase).quotientAndRemainder(dividingBy: 2400).remainder - (onset < phase ? 2400 : 0)
            let gap = gaps.first { $0.upperBound == onset }
            XCTAssertNotNil(gap, "onset \(onset) is off the grid (phase \(phase)) and not right after an unrun cycle: \(gaps)")
            if let gap { XCTAssertTrue(gap.contains(due), "onset \(onset): its pulse was due at \(due), not in \(gap)") }
            late += 1
        }
        let intervals = zip(onsets.dropFirst(), onsets).map { $0 - $1 }
        XCTAssertTrue(intervals.allSatisfy { $0 > 0 && $0 < 4800 }, "no pulse lost: \(intervals)")
        let counted = status.stdout.components(separatedBy: "\"late_pulses\":").dropFirst().first?.prefix { $0.isNumber }
        XCTAssertEqual(counted.flatMap { Int($0) }, late, "late pulses counted as heard: \(status.stdout)")
    }

    /// PipeWire killed (its 0.3.65 libjack calls only the plain shutdown callback) and started
    /// again: the run says so, its ports come back, `reconnects` counts it, and it sounds again.
    func testPipeWireKilledAndRestartedIsReconnected() throws {
        let runtime = try XCTUnwrap(TestServer.pipeWireRuntime)
        let port = OSCEncoder.freePort()
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--bpm", "100", "--name", "pj-pw-survivor", "--osc-port", "\(port)"],
                                                server: "default", output: output)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-pw-survivor", server: "default"))
        let pid = try XCTUnwrap(Int32(String(contentsOfFile: runtime + "/pipewire.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGKILL)
        usleep(500_000)
        XCTAssertTrue(run.isRunning, "pulsejack outlives PipeWire")
        // The harness starts PipeWire again a second later; the ports come back with it.
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-pw-survivor", server: "default", seconds: 20), "back on the new PipeWire")
        try TestServer.forcePipeWire("clock.force-quantum", 256)
        let ear = try CaptureClient(name: "pj-pw-restart-ear", threshold: 0.1)
        try ear.connect(from: "pj-pw-survivor:out_L")
        usleep(2_000_000)
        ear.close()
        XCTAssertGreaterThanOrEqual(ear.onsets.count, 2, "it sounds again")
        try assertOneReconnect(run, output: output, port: port, to: "PipeWire's JACK")
    }
}
