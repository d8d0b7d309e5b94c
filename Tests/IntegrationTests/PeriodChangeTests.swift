import Foundation
import JackPeers
import TestSupport
import XCTest

/// The server's period changed under a running pulsejack (`jack_bufsize`, as a DAW or a
/// browser asking for another latency does): the beat grid must not move.
final class PeriodChangeTests: XCTestCase {
    /// jackd2 moves its frame counter by new − old at the first cycle of a new size (no cycle is
    /// lost): taken for lost frames, every later pulse sounded early. Heard by a capture client
    /// counting its own samples, a 300-BPM click on four pulses a beat keeps 2,400 frames between
    /// every pulse through ten changes between 64 and 2048 frames.
    func testTenPeriodChangesKeepEveryPulseOnItsContractFrameOnJackd2() throws {
        try Subprocess.requirePulsejack()
        let jackd = try PrivateJackd.forTest(name: "pulsejack-period")
        let folder = try TemporaryFolder("period").url
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = OSCEncoder.freePort()
        let (run, output) = try startFourPulseClick(name: "pj-period", port: port, server: jackd.name, folder: folder)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-period", server: jackd.name))
        let ear = try CaptureClient(name: "pj-period-ear", server: jackd.name)
        try ear.connect(from: "pj-period:out_L")
        usleep(300_000)
        let sizes = [2048, 64, 2048, 64, 2048, 64, 2048, 64, 2048, 512]
        for size in sizes {
            let changed = try Subprocess.run("/usr/bin/jack_bufsize", ["\(size)"], environment: ["JACK_DEFAULT_SERVER": jackd.name])
            XCTAssertEqual(changed.status, 0, "jack_bufsize \(size): \(changed.stderr)")
            usleep(400_000)
        }
        let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        XCTAssertTrue(status.stdout.contains("\"period\":512"), "status shows the period now: \(status.stdout)")
        XCTAssertTrue(status.stdout.contains("\"period_changes\":10"), status.stdout)
        ear.close()
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)

        let onsets = ear.onsets
        XCTAssertGreaterThan(onsets.count, 70, "4 s of pulses every 2,400 frames: \(onsets.count) heard")
        let intervals = zip(onsets.dropFirst(), onsets).map { $0 - $1 }
        if LiveGrid.undisturbed(printed) {
            XCTAssertTrue(intervals.allSatisfy { $0 == 2400 }, "every pulse 2,400 frames after the last: \(intervals)\n\(printed)")
        } else {
            // An overloaded machine loses cycles at 64 frames (the ear's and ours, both seen as
            // xruns): an interval may then be off by whole periods of the size in force, never
            // by a fraction of one, and by no more in all than the xruns' worth.
            let (xruns, skipped) = LiveGrid.xruns(in: printed)
            let deviations = intervals.map { Int(($0 + 1200) % 2400 - 1200) }
            XCTAssertTrue(deviations.allSatisfy { $0 % 64 == 0 }, "off the grid by part of a period: \(intervals)\n\(printed)")
            XCTAssertLessThanOrEqual(deviations.map(abs).reduce(0, +), skipped + 2048 * xruns, "\(intervals)\n\(printed)")
        }
    }
}
