import Foundation
import TestSupport
import XCTest

/// JACK's server registry has 8 slots, and a jackd killed with SIGKILL keeps its slot until a
/// server of the same name starts. The test harness uses fixed names, so killing its server
/// ten times in a row leaves no debris that stops the next start.
final class JackRegistryTests: XCTestCase {
    func testTenKilledPrivateServersDoNotFillTheRegistry() throws {
        try TestServer.requireJackd2("the test kills jackd2 servers of the harness's own; PipeWire keeps no JACK server registry")
        let harness = Subprocess.repository.appendingPathComponent("scripts/with-private-jackd.sh").path
        // Each run starts its server (the slot after the suite's own) and the command kills it
        // with SIGKILL: no clean-up, the slot left behind, as when a run is cut off.
        let murder = "kill -KILL $(pgrep -f -- \"-n $PULSEJACK_TEST_SERVER -d dummy\") && echo killed $PULSEJACK_TEST_SERVER"
        for round in 1...10 {
            let result = try Subprocess.run("/bin/bash", [harness, "/bin/sh", "-c", murder])
            XCTAssertEqual(result.status, 0, "round \(round): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("killed pulsejack-test-"), "round \(round): \(result.stdout)")
        }
        let after = try Subprocess.run("/bin/bash", [harness, "/bin/sh", "-c", "jack_lsp -s $PULSEJACK_TEST_SERVER"])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertTrue(after.stdout.contains("system:playback_1"), "the eleventh server starts and serves: \(after.stdout)")
    }
}
