import Foundation
import TestSupport
import XCTest

/// A test on the lab's bus: the private jackd (jackd2's pass), pylsl and liblsl, and a network
/// namespace of its own with loopback alone (`LabNetwork`) that every peer, pulsejack and its
/// status query run inside, so LSL's discovery never leaves the machine. Removed after each test.
class LabNetworkTestCase: XCTestCase {
    var network: LabNetwork!

    /// The server's name, once the namespace `tag` is made.
    /// `peerMissing`: why the test's peer cannot run (pylsl's by default).
    func prepare(_ tag: String, peerMissing: @autoclosure () -> String? = LSLPeer.missing,
                 onPipeWire: String = "LSL reaches the engine as a sensor does, the same on every server: the jackd2 pass runs this") throws -> String {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        if let missing = peerMissing() { throw XCTSkip(missing) }
        if TestServer.isPipeWire { throw XCTSkip(onPipeWire) }
        network = try LabNetwork(tag)
        return server
    }

    override func tearDown() {
        network?.remove()
        network = nil
        super.tearDown()
    }

    /// `pulsejack status --json` of the run inside whose OSC port is `port`.
    func status(_ port: UInt16) -> [String: Any] { network.status(oscPort: port) }
}
