import Foundation
import TestSupport
import XCTest

extension TestServer {
    /// Skips a test that cannot apply under PipeWire (`make test`'s second pass), saying why.
    static func requireJackd2(_ why: String) throws {
        if let pipeWireVersion { throw XCTSkip("under PipeWire \(pipeWireVersion): \(why)") }
    }
}

extension TestServer {
    /// Skips a test of PipeWire's own behaviour on jackd2's pass, saying why.
    static func requirePipeWire(_ why: String) throws {
        if pipeWireVersion == nil { throw XCTSkip("on jackd2: \(why)") }
    }

    /// The private PipeWire's runtime directory (`scripts/with-private-pipewire.sh`).
    static var pipeWireRuntime: String? { ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] }

    /// Sets one of PipeWire's clock settings (`clock.force-quantum`, `clock.force-rate`).
    static func forcePipeWire(_ key: String, _ value: Int) throws {
        let set = try Subprocess.run("/usr/bin/pw-metadata", ["-n", "settings", "0", key, "\(value)"], timeout: 10)
        guard set.status == 0 else { throw XCTSkip("pw-metadata could not set \(key): \(set.stderr)") }
    }
}

extension PrivateJackd {
    /// A jackd of the test's own: on jackd2's pass only, since this process's PipeWire libjack
    /// could not reach it.
    static func forTest(name: String) throws -> PrivateJackd {
        try TestServer.requireJackd2("the test starts a jackd of its own")
        return try PrivateJackd(name: name)
    }
}

/// A 300-BPM click on four pulses a beat (a pulse every 2,400 frames at 48 kHz), run as `name`
/// with its OSC on `port`: the period-change tests' material.
func startFourPulseClick(name: String, port: UInt16, server: String, folder: URL,
                         _ extra: [String] = []) throws -> (run: Process, output: Pipe) {
    try """
    name: four-a-beat
    voices:
      - {name: click, kind: click, gain: 0.89, subdivide: 4}
    """.write(to: folder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
    let output = Pipe()
    let run = try Subprocess.startPulsejack(["run", "--preset", folder.path, "--bpm", "300", "--name", name, "--osc-port", "\(port)"] + extra,
                                            server: server, output: output)
    return (run, output)
}

/// After one server restart: the status counts it, and the run, stopped, says the server stopped,
/// that it reconnected to `server` (as the run names it) and how often. What the run printed.
@discardableResult
func assertOneReconnect(_ run: Process, output: Pipe, port: UInt16, to server: String,
                        file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
    XCTAssertTrue(status.stdout.contains("\"reconnects\":1"), status.stdout + status.stderr, file: file, line: line)
    run.interrupt()
    run.waitUntilExit()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    XCTAssertEqual(run.terminationStatus, 0, printed, file: file, line: line)
    for said in ["the JACK server stopped", "reconnected to \(server)", "1 reconnects"] {
        XCTAssertTrue(printed.contains(said), "'\(said)' missing: \(printed)", file: file, line: line)
    }
    return printed
}
