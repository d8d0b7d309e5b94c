import OSC
import Inputs
import Foundation
import JackPeers
import TestSupport
import XCTest

/// pulsejack under a session manager. Debian's new-session-manager (nsmd) is not in this
/// machine's package sources, so the manager here is a real OSC peer speaking the NSM 1.1
/// protocol over UDP, written in the test: it announces, opens, saves and terminates.
final class NSMSessionTests: XCTestCase {
    private func launch(manager: UDPPeer, server: String, oscPort: UInt16, output: Pipe,
                        preset: String = Subprocess.repository.appendingPathComponent("presets/click").path) throws -> Process {
        try Subprocess.startPulsejack(["run", "--preset", preset,
                                       "--bpm", "80", "--osc-port", "\(oscPort)"],
                                      server: server, output: output,
                                      environment: ["NSM_URL": "osc.udp://127.0.0.1:\(manager.port)/"])
    }

    /// The manager's side of announce and open; returns the announce's arguments.
    private func open(_ manager: UDPPeer, path: String, clientID: String) throws -> [OSCMessage.Argument] {
        let announce = try XCTUnwrap(manager.expect("/nsm/server/announce", timeout: 10), "no announce")
        manager.reply(OSCEncoder.message("/reply", [.string("/nsm/server/announce"), .string("welcome"), .string("test-nsm"),
                                                    .string(":server-control:")]))
        manager.reply(OSCEncoder.message("/nsm/client/open", [.string(path), .string("Heart session"), .string(clientID)]))
        let reply = try XCTUnwrap(manager.expect("/reply", timeout: 10), "no reply to open")
        XCTAssertEqual(reply.arguments.first, .string("/nsm/client/open"))
        return announce.arguments
    }

    /// A stranger on the machine (another port) cannot open a session, make folders or save:
    /// only the manager in NSM_URL is obeyed, and the socket listens on loopback only.
    func testOnlyTheManagerIsObeyed() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pulsejack-nsm-stranger-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let strangersPath = folder.appendingPathComponent("made/by/a/stranger").path
        let sessionPath = folder.appendingPathComponent("session").path
        let clientID = "pj-nsm-stranger-\(getpid())"
        let manager = UDPPeer(), stranger = UDPPeer(), oscPort = OSCEncoder.freePort(), output = Pipe()
        let run = try launch(manager: manager, server: server, oscPort: oscPort, output: output)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertNotNil(manager.expect("/nsm/server/announce", timeout: 10), "no announce")
        let nsmPort = try XCTUnwrap(manager.lastSender).port
        // The socket is bound to 127.0.0.1, not 0.0.0.0 (/proc/net/udp: local address in hex).
        let table = try String(contentsOfFile: "/proc/net/udp", encoding: .utf8)
        let row = table.split(separator: "\n").first { $0.contains(String(format: ":%04X ", nsmPort)) }
        XCTAssertEqual(row.map { String($0.split(separator: " ")[1]) }, String(format: "0100007F:%04X", nsmPort), table)

        stranger.send(OSCEncoder.message("/nsm/client/open", [.string(strangersPath), .string("x"), .string("evil")]), to: nsmPort)
        usleep(700_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: strangersPath), "a stranger's open made a folder")
        manager.reply(OSCEncoder.message("/reply", [.string("/nsm/server/announce"), .string("welcome"), .string("test-nsm"),
                                                    .string(":server-control:")]))
        manager.reply(OSCEncoder.message("/nsm/client/open", [.string(sessionPath), .string("Heart session"), .string(clientID)]))
        XCTAssertEqual(manager.expect("/reply", timeout: 10)?.arguments.first, .string("/nsm/client/open"))
        XCTAssertTrue(try Subprocess.waitForPorts(of: clientID, server: server))
        stranger.send(OSCEncoder.message("/nsm/client/save"), to: nsmPort)
        usleep(700_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sessionPath + "/preset.yaml"), "a stranger's save wrote the preset")
        let reply = try XCTUnwrap(OSCEncoder.send(OSCEncoder.message("/pulse/status"), port: oscPort, awaitReply: true))
        let status = try XCTUnwrap(OSCPacket.decode(reply).first).arguments
        let ignored = status.firstIndex(of: .string("nsm_ignored")).map { status[$0 + 1] }
        XCTAssertEqual(ignored, .int(2))
        // The manager itself still is obeyed.
        manager.reply(OSCEncoder.message("/nsm/client/save"))
        XCTAssertEqual(manager.expect("/reply", timeout: 5)?.arguments.first, .string("/nsm/client/save"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: sessionPath + "/preset.yaml"))
        // Its ports are made at start: switching to another session is a restart, said as an error.
        let otherPath = folder.appendingPathComponent("other").path
        manager.reply(OSCEncoder.message("/nsm/client/open", [.string(otherPath), .string("Other"), .string(clientID)]))
        let refusal = try XCTUnwrap(manager.expect("/error", timeout: 5), "no answer to a second open")
        XCTAssertEqual(refusal.arguments.first, .string("/nsm/client/open"))
        XCTAssertTrue("\(refusal.arguments)".contains("is a restart of the client"), "\(refusal.arguments)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: otherPath), "a refused open made a folder")
        XCTAssertTrue(try Subprocess.waitForPorts(of: clientID, server: server), "it plays on")
        run.terminate()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("ignored an NSM message from 127.0.0.1:\(stranger.port)"), printed)
        XCTAssertTrue(printed.contains("cannot open session 'Other' while running"), printed)
    }

    func testAnnounceOpenDirtySaveQuitAndReopen() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pulsejack-nsm-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sessionPath = folder.appendingPathComponent("pulsejack.nABCD").path
        let clientID = "pulsejack.nABCD\(getpid())"
        let manager = UDPPeer(), oscPort = OSCEncoder.freePort(), output = Pipe()
        let run = try launch(manager: manager, server: server, oscPort: oscPort, output: output)
        defer { if run.isRunning { run.terminate() } }

        // Before the open, no JACK client exists.
        let announced = try XCTUnwrap(manager.expect("/nsm/server/announce", timeout: 10), "no announce")
        XCTAssertEqual(announced.arguments, [.string("pulsejack"), .string(":dirty:"), .string("pulsejack"), .int(1), .int(1),
                                             .int(Int64(run.processIdentifier))])
        usleep(500_000)
        let before = try Subprocess.run("/usr/bin/jack_lsp", [], environment: ["JACK_DEFAULT_SERVER": server]).stdout
        XCTAssertFalse(before.contains(clientID) || before.split(separator: "\n").contains { $0.hasPrefix("pulsejack:") },
                       "no JACK client before open: \(before)")
        manager.reply(OSCEncoder.message("/reply", [.string("/nsm/server/announce"), .string("welcome"), .string("test-nsm"),
                                                    .string(":server-control:")]))
        manager.reply(OSCEncoder.message("/nsm/client/open", [.string(sessionPath), .string("Heart session"), .string(clientID)]))
        XCTAssertEqual(manager.expect("/reply", timeout: 10)?.arguments.first, .string("/nsm/client/open"))
        XCTAssertTrue(try Subprocess.waitForPorts(of: clientID, server: server), "the client id is the JACK name")
        let connections = try Subprocess.run("/usr/bin/jack_lsp", ["-c", "\(clientID):out_L"], environment: ["JACK_DEFAULT_SERVER": server])
        XCTAssertEqual(connections.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(clientID):out_L", "no auto-connections under NSM")

        // A change makes the session dirty; a save writes it and makes it clean.
        OSCEncoder.send(OSCEncoder.message("/voice/click/gain", [.float(0.5)]), port: oscPort)
        XCTAssertNotNil(manager.expect("/nsm/client/is_dirty", timeout: 5))
        manager.reply(OSCEncoder.message("/nsm/client/save"))
        XCTAssertEqual(manager.expect("/reply", timeout: 5)?.arguments.first, .string("/nsm/client/save"))
        XCTAssertNotNil(manager.expect("/nsm/client/is_clean", timeout: 5))
        let saved = try String(contentsOfFile: sessionPath + "/preset.yaml", encoding: .utf8)
        XCTAssertTrue(saved.contains("gain: 0.5"), saved)
        XCTAssertTrue(saved.contains("bpm: 80.0"), saved)

        // SIGTERM: quit now.
        run.terminate()
        run.waitUntilExit()
        XCTAssertEqual(run.terminationStatus, 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("saved the session"), printed)

        // Reopened by the manager, it plays the saved session: the click at half gain.
        let again = Pipe(), manager2 = UDPPeer()
        let rerun = try launch(manager: manager2, server: server, oscPort: oscPort, output: again)
        defer { if rerun.isRunning { rerun.terminate() } }
        _ = try open(manager2, path: sessionPath, clientID: clientID)
        XCTAssertTrue(try Subprocess.waitForPorts(of: clientID, server: server))
        let ear = try CaptureClient(name: "pj-nsm-ear-\(getpid())", threshold: 0.1)
        try ear.connect(from: "\(clientID):out_L")
        usleep(2_000_000)
        ear.close()
        rerun.terminate()
        rerun.waitUntilExit()
        XCTAssertGreaterThanOrEqual(ear.onsetLevels.count, 2)
        XCTAssertTrue(ear.onsetLevels.allSatisfy { $0 == 0.5 }, "\(ear.onsetLevels)")
        XCTAssertTrue(String(decoding: again.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains(sessionPath + "/preset.yaml"))
    }

    /// A plugin's state under the session manager: an insert's control moved over OSC is saved
    /// in the session folder (its LV2 state and the preset), and the reopened session plays it.
    func testAnInsertsStateIsSavedInTheSessionAndRestoredOnReopen() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let temporary = try TemporaryFolder("nsm-plugin")
        defer { temporary.remove() }
        let folder = temporary.url
        let preset = folder.appendingPathComponent("preset.yaml").path
        try """
        name: click through eg-amp
        voices:
          - name: click
            kind: click
            inserts:
              - plugin: http://lv2plug.in/plugins/eg-amp
                controls: {gain: 0}
        """.write(toFile: preset, atomically: true, encoding: .utf8)
        let sessionPath = folder.appendingPathComponent("pulsejack.nPLUG").path
        let clientID = "pulsejack.nPLUG\(getpid())"
        let manager = UDPPeer(), oscPort = OSCEncoder.freePort(), output = Pipe()
        let run = try launch(manager: manager, server: server, oscPort: oscPort, output: output, preset: preset)
        defer { if run.isRunning { run.terminate() } }
        _ = try open(manager, path: sessionPath, clientID: clientID)
        XCTAssertTrue(try Subprocess.waitForPorts(of: clientID, server: server))
        OSCEncoder.send(OSCEncoder.message("/voice/click/insert/1/gain", [.float(-6)]), port: oscPort)
        XCTAssertNotNil(manager.expect("/nsm/client/is_dirty", timeout: 5))
        manager.reply(OSCEncoder.message("/nsm/client/save"))
        XCTAssertEqual(manager.expect("/reply", timeout: 5)?.arguments.first, .string("/nsm/client/save"))
        run.terminate()
        run.waitUntilExit()
        let saved = try String(contentsOfFile: sessionPath + "/preset.yaml", encoding: .utf8)
        XCTAssertTrue(saved.contains("gain: -6.0") && saved.contains("state: plugins/click.insert1"), saved)
        let state = try String(contentsOfFile: sessionPath + "/plugins/click.insert1/1/state.ttl", encoding: .utf8)
        XCTAssertTrue(state.contains("-6"), state)

        // Reopened: the click (full scale) through −6 dB.
        let again = Pipe(), manager2 = UDPPeer()
        let rerun = try launch(manager: manager2, server: server, oscPort: oscPort, output: again, preset: preset)
        defer { if rerun.isRunning { rerun.terminate() } }
        _ = try open(manager2, path: sessionPath, clientID: clientID)
        XCTAssertTrue(try Subprocess.waitForPorts(of: clientID, server: server))
        let ear = try CaptureClient(name: "pj-nsm-plugin-ear-\(getpid())", threshold: 0.1)
        try ear.connect(from: "\(clientID):out_L")
        usleep(2_000_000)
        ear.close()
        rerun.terminate()
        rerun.waitUntilExit()
        let expected = Float(pow(10, -6.0 / 20))
        XCTAssertGreaterThanOrEqual(ear.onsetLevels.count, 2)
        XCTAssertTrue(ear.onsetLevels.allSatisfy { abs($0 - expected) < 1e-6 }, "\(ear.onsetLevels) vs \(expected)")
    }
}
