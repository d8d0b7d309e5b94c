import Foundation
import JackPeers
import TestSupport
import XCTest

/// The server watch at rest has no timer: the control thread sleeps until the cycles' deadline
/// expires. A server that stops running cycles (SIGSTOP: hung, or its machine suspended) is
/// still said within seconds, and so is its return.
final class StallWatchTests: XCTestCase {
    func testAStoppedServerIsSaidAndItsReturnWithNoTimerAtRest() throws {
        let jackd = try PrivateJackd.forTest(name: "pulsejack-stall")
        defer {
            if let server = jackd.processIdentifier { kill(server, SIGCONT) }
            jackd.stop()
        }
        let output = Pipe()
        let name = "pj-stall"
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--bpm", "120", "--no-osc", "--name", name],
                                                server: jackd.name, output: output)
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: jackd.name), "\(name)'s ports")
        usleep(1_000_000)
        func controlWakeups() -> Int { ProcessThreads.of(run.processIdentifier).filter { $0.name == "pulsejack" }.reduce(0) { $0 + $1.wakeups } }
        let before = controlWakeups()
        usleep(3_000_000)
        XCTAssertLessThanOrEqual(controlWakeups() - before, 1, "the control thread woke at rest (a timer?)")

        let server = try XCTUnwrap(jackd.processIdentifier)
        kill(server, SIGSTOP)
        usleep(3_500_000)
        kill(server, SIGCONT)
        usleep(2_500_000)
        run.interrupt()
        let exited = Date() + 10
        while run.isRunning && Date() < exited { usleep(20_000) }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("JACK has run no cycle for 1.0 s"), printed)
        XCTAssertTrue(printed.contains("JACK runs cycles again after"), printed)
    }
}
