import Foundation
import JackPeers
import TestSupport
import XCTest

/// An installation's pulsejack starts before its JACK server (at boot, from the systemd user
/// unit): it waits, then plays once the server is up; a server that never comes is one error.
final class ServerWaitTests: XCTestCase {
    /// The unit's own ExecStart for `instance` (`pulsejack@INSTANCE`), its specifiers expanded as
    /// systemd expands them (`%i` as written; `%I` unescaped, by systemd-escape itself), with
    /// $PULSEJACK_OPTIONS as an instance's env file would set them.
    private func unitCommand(instance: String = "click", options: [String]) throws -> [String] {
        let unit = try String(contentsOf: Subprocess.repository.appendingPathComponent("packaging/pulsejack@.service.in"), encoding: .utf8)
        let execStart = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = execStart.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        XCTAssertEqual(words.first, "@BINDIR@/pulsejack")
        return words.dropFirst().flatMap { word -> [String] in
            switch word {
            case "%i": return [instance]
            case "%I": return [(try? Subprocess.run("/usr/bin/systemd-escape", ["--unescape", instance], timeout: 10).stdout
                                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? instance]
            case "$PULSEJACK_OPTIONS": return options
            default: return [word]
            }
        }
    }

    /// `pulsejack@NAME` for every shipped preset: the unit's command names the preset itself
    /// (net-duo, not %I's net/duo), and `voices` loads it by that name.
    func testTheUserUnitRunsEveryShippedPresetByItsName() throws {
        try Subprocess.requirePulsejack()
        let names = try FileManager.default.contentsOfDirectory(atPath: Shipped.presets.path).filter {
            FileManager.default.fileExists(atPath: Shipped.presets.appendingPathComponent("\($0)/preset.yaml").path)
        }.sorted()
        XCTAssertTrue(names.contains { $0.contains("-") }, "a shipped name with a dash: \(names)")
        // From an empty folder, as systemd starts it: the name is a name, never a path that happens to exist.
        let folder = try TemporaryFolder("unit-names")
        defer { folder.remove() }
        for name in names {
            let arguments = try unitCommand(instance: name, options: [])
            let preset = try XCTUnwrap(arguments.firstIndex(of: "--preset").map { arguments[$0 + 1] })
            XCTAssertEqual(preset, name)
            let loaded = try Subprocess.run(Subprocess.pulsejack, ["voices", "--preset", preset], in: folder.url, timeout: 60)
            XCTAssertEqual(loaded.status, 0, "pulsejack@\(name): \(loaded.stderr)")
        }
    }

    func testTheUnitsCommandWaitsForTheServerThenPlaysAndConnects() throws {
        try Subprocess.requirePulsejack()
        try TestServer.requireJackd2("the test starts its own jackd, late")
        // A fixed name: a jackd killed uncleanly frees its registry slot only when one of its name starts again.
        let server = "pulsejack-late"
        let port = OSCEncoder.freePort()
        let arguments = try unitCommand(options: ["--name", "pj-late", "--osc-port", "\(port)", "--bpm", "120"])
        XCTAssertTrue(arguments.contains("--wait-for-server") && arguments.contains("--connect"), "\(arguments)")
        let run = try LiveRun(arguments, server: server)
        defer { run.stop() }
        usleep(2_000_000)
        XCTAssertTrue(run.process.isRunning, "it waits for the server rather than failing")

        let jackd = try PrivateJackd.forTest(name: server)
        defer { jackd.stop() }
        TestServer.use(jackd.name)
        XCTAssertTrue(try Subprocess.waitForPorts(of: "pj-late", server: jackd.name, seconds: 10), "it joins the server once it is up")
        let connections = try Subprocess.run("/usr/bin/jack_lsp", ["-c", "pj-late:out_L"], environment: ["JACK_DEFAULT_SERVER": jackd.name])
        XCTAssertTrue(connections.stdout.contains("system:playback_1"), "--connect: \(connections.stdout)")
        let ear = try CaptureClient(name: "pj-late-ear", threshold: 0.1)
        try ear.connect(from: "pj-late:out_L")
        usleep(2_200_000)
        ear.close()
        let onsets = ear.onsetJackFrames
        XCTAssertGreaterThanOrEqual(onsets.count, 3, "the preset click plays")
        let (status, printed) = run.stop(signal: SIGTERM)
        XCTAssertEqual(status, 0, printed)
        XCTAssertTrue(LiveGrid.onGrid(onsets, framesPerBeat: 24_000, output: printed), "at 120 BPM: \(onsets)")
        XCTAssertTrue(printed.contains("pulsejack: waiting up to 120 s for JACK server '\(server)' (jackd or PipeWire)"), printed)
        XCTAssertTrue(printed.contains("pulsejack: JACK server '\(server)' is up"), printed)
        XCTAssertEqual(printed.components(separatedBy: "waiting up to").count, 2, "one line while it waits: \(printed)")
    }

    func testAServerThatNeverComesIsOneError() throws {
        try Subprocess.requirePulsejack()
        try TestServer.requireJackd2("PipeWire's libjack joins PipeWire whatever the server's name")
        let server = "pulsejack-never-\(getpid())"
        let started = Date()
        let run = try Subprocess.run(Subprocess.pulsejack, ["run", "--preset", "click", "--wait-for-server", "1.5", "--no-osc"],
                                     environment: ["JACK_DEFAULT_SERVER": server, "JACK_NO_START_SERVER": "1"], timeout: 30)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.5, "it waited")
        XCTAssertEqual(run.stderr, "pulsejack: error: --wait-for-server: no JACK server '\(server)' came up in 1.5 s\n")
        // A stop while it waits ends it as a stop does elsewhere: one line, status 0.
        let stopped = try LiveRun(["run", "--preset", "click", "--wait-for-server", "30", "--no-osc"], server: server)
        usleep(1_000_000)
        let (stoppedStatus, said) = stopped.stop(signal: SIGTERM)
        XCTAssertEqual(stoppedStatus, 0, said)
        XCTAssertTrue(said.contains("pulsejack: stopped by SIGTERM while waiting for a JACK server"), said)

        let refused = try Subprocess.run(Subprocess.pulsejack, ["run", "--wait-for-server=-3"])
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--wait-for-server takes 0 to 86400 seconds"), refused.stderr)
    }
}
