import Foundation
import TestSupport
import XCTest

/// A CLAP plugin's main-thread work during `pulsejack run` on the private jackd: the project's
/// own CLAP plugin registers a 25 ms timer and a descriptor with a byte waiting, and asks for a
/// callback from its first process; each, served, logs a line saying whether `thread-check` called
/// its thread the main one. In process the live session's control thread serves them; isolated,
/// the child's request thread does. Its timer count comes back as a meter (an output event).
final class CLAPMainThreadLiveTests: XCTestCase {
    func testTimersDescriptorsAndCallbacksAreServedOnTheMainThread() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("clap-main-thread")
        for isolate in [false, true] {
            let preset = folder.file("clap-\(isolate).yaml")
            try ("voices:\n  - name: beat\n    kind: click\n    gain: 0.5\n    inserts:\n"
                 + "      - plugin: \(MisbehavingPlugins.clapURI("clean"))\n        isolate: \(isolate)\n")
                .write(toFile: preset, atomically: true, encoding: .utf8)
            let client = "pj-clap-main-\(isolate)-\(getpid())"
            let run = try LiveRun(["run", "--preset", preset, "--bpm", "120", "--no-osc", "--name", client], server: server,
                                  environment: ["CLAP_PATH": try MisbehavingPlugins.clapFolder()])
            XCTAssertTrue(try Subprocess.waitForPorts(of: client, server: server), "the run's ports never appeared")
            Thread.sleep(forTimeInterval: 1.5)
            let (exit, printed) = run.stop()
            XCTAssertEqual(exit, 0, printed)
            let label = isolate ? "isolated" : "in process"
            for line in ["timer fired 10 times", "descriptor readable", "main-thread callback"] {
                XCTAssertTrue(printed.contains(line), "\(label): \(line)\n\(printed)")
            }
            XCTAssertFalse(printed.contains("not on the main thread"), "\(label): \(printed)")
            XCTAssertFalse(printed.contains("not on the audio thread"), "\(label): \(printed)")
        }
    }
}
