import CJack
import Inputs
import Foundation
import TestSupport
import XCTest
@testable import Engine
@testable import JackBackend
@testable import Presets

/// Closing a client with hundreds of described ports: jackd2 1.9.21 used to deadlock with it
/// (it notified the closing client of each deleted port property after that client had stopped
/// reading); the close must return, and leave nothing of ours in the metadata store.
final class JackClientCloseTests: XCTestCase {
    /// Subjects (clients, ports) with metadata on the server, as JACK's own store lists them.
    /// PipeWire's libjack keeps that store per process, fed by the metadata events of the
    /// process's clients, so a client's own removals at its close never reach it: there a fresh
    /// `jack_property -l` asks the server.
    private func describedSubjects() throws -> Int {
        if TestServer.isPipeWire {
            let listed = try Subprocess.run("/usr/bin/jack_property", ["-l"])
            return listed.stdout.split(separator: "\n").filter { !$0.hasPrefix("key:") && !$0.isEmpty }.count
        }
        var descriptions: UnsafeMutablePointer<jack_description_t>?
        let count = Int(jack_get_all_properties(&descriptions))
        if let descriptions {
            for index in 0..<max(count, 0) { jack_free_description(descriptions + index, 0) }
            jack_free(descriptions)
        }
        return max(count, 0)
    }

    func testAClientWithHundredsOfDescribedPortsClosesAndLeavesNoMetadata() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let temporary = try TemporaryFolder("close")
        defer { temporary.remove() }
        let folder = temporary.path
        // 100 voices with a pair and a MIDI port each: 300 ports more, each with a pretty name and an order.
        try ("voices:\n" + (0..<100).map { "  - {name: v\($0), kind: click, gain: 0.01}\n" }.joined())
            .write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        let loaded = try LoadedPreset.load(path: folder)
        let before = try describedSubjects()

        let client = try JackClient(name: "pulsejack-close-test")
        var options = JackClient.Options()
        options.outputs = try OutputLayout(preset: loaded, mode: .voices, midi: .voices)
        let engine = try EngineGraph.build(preset: loaded, sampleRate: client.sampleRate, maxFrames: client.bufferSize) {
            $0.outputs = options.outputs
        }
        try client.activate(engine: engine, options: options)
        XCTAssertGreaterThanOrEqual(try describedSubjects(), before + 306, "the client and its 306 ports are described")
        client.deactivate()  // as a live run stops: deactivated, then closed

        // On a thread of its own, so that a regression fails here instead of hanging the suite.
        let closed = DispatchSemaphore(value: 0)
        Thread {
            client.close()
            closed.signal()
        }.start()
        XCTAssertEqual(closed.wait(timeout: .now() + 10), .success, "jack_client_close did not return")
        XCTAssertEqual(try describedSubjects(), before, "metadata of ours left on the server")
    }
}
