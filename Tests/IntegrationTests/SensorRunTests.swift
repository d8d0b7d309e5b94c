import Foundation
import JackPeers
import TestSupport
import XCTest

/// `pulsejack run --heart ble` end to end: BlueZoo on a private bus, a fake strap playing the RR
/// intervals of a real ECG recording, pulsejack discovering, connecting and playing its beats
/// for a JACK ear; `status` reporting the sensor; the session log re-rendering the take.
final class SensorRunTests: XCTestCase {
    func testAStrapsHeartPlaysLiveAndItsSessionReRendersIdentically() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        if TestServer.isPipeWire { throw XCTSkip("a sensor reaches the engine the same way on every server: the jackd2 pass runs this") }
        let bluez = try PrivateBlueZ()
        defer { bluez.stop() }
        let folder = try TemporaryFolder("sensor-run")
        defer { folder.remove() }
        try PrivateBlueZ.recordedRR(end: 30, into: folder.file("rr.txt"))
        let strap = try bluez.startFake(["--adapter", "hci1", "--name", "Polar H10 TEST", "--battery", "73", "strap", "--rr", folder.file("rr.txt")])

        let name = "pj-strap-\(getpid())", port = OSCEncoder.freePort()
        let session = folder.file("session.jsonl"), liveEvents = folder.file("live.jsonl")
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--name", name, "--osc-port", "\(port)", "--heart", "ble:Polar H10", "--predict-beats", "--bpm", "60",
                                                 "--record-session", session, "--events-out", liveEvents],
                                                server: server, output: output, environment: bluez.environment)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server))
        let ear = try CaptureClient(name: "pj-strap-ear", threshold: 0.05)
        try ear.connect(from: "\(name):out_L")
        XCTAssertTrue(strap.waitForNotifications(10, seconds: 30), strap.stderr)
        let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        let values = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] ?? [:]
        run.interrupt()
        run.waitUntilExit()
        ear.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertTrue(printed.contains("pulsejack: heart sensor: connected to Polar H10 TEST (00:AA:BB:CC:DD:EE), battery 73%"), printed)

        XCTAssertEqual(values["heart_sensor"] as? String, "connected", status.stdout)
        XCTAssertEqual(values["heart_sensor_device"] as? String, "Polar H10 TEST (00:AA:BB:CC:DD:EE)")
        XCTAssertEqual(values["heart_sensor_battery"] as? Int, 73)
        XCTAssertEqual(values["heart_sensor_contact"] as? String, "yes")
        XCTAssertGreaterThanOrEqual(values["heart_sensor_notifications"] as? Int ?? 0, 8)
        XCTAssertEqual(values["dropouts"] as? Int, 0)

        // Every RR interval the strap sent is in the session log, as sent.
        let lines = try String(contentsOfFile: session, encoding: .utf8).split(separator: "\n").dropFirst()
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let logged = lines.filter { $0["event"] as? String == "rr" }.flatMap { $0["values"] as? [Double] ?? [] }
        let sent = strap.notifications.flatMap { $0["rr"] as? [Double] ?? [] }
        XCTAssertGreaterThan(logged.count, 10)
        XCTAssertEqual(logged, Array(sent.prefix(logged.count)))
        XCTAssertGreaterThan(lines.filter { $0["event"] as? String == "heartbeat" }.count, 10, "predicted beats")
        XCTAssertFalse(lines.contains { $0["event"] as? String == "tempo" }, "the strap's beats are the heart: --bpm starts no clock beside them")

        // The ear heard a click for every beat the engine fired (none lost between them).
        let fired = try String(contentsOfFile: liveEvents, encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThan(fired.count, 10)
        XCTAssertGreaterThanOrEqual(ear.onsetJackFrames.count, fired.count - 2)

        let offlineEvents = folder.file("offline.jsonl")
        let render = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                               "--session", session, "--out", folder.file("offline.wav"), "--events-out", offlineEvents])
        XCTAssertEqual(render.status, 0, render.stderr)
        XCTAssertEqual(try String(contentsOfFile: offlineEvents, encoding: .utf8).split(separator: "\n"), fired)
    }

    /// `pulsejack run --eeg muse` with the MusicMood preset's ranges: the headband's band powers in
    /// `status` (band_alpha …, eeg_sensor …) and the mood they make, as OSC's would.
    func testAMusesBandPowersSetTheMoodLive() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        if TestServer.isPipeWire { throw XCTSkip("a sensor reaches the engine the same way on every server: the jackd2 pass runs this") }
        let bluez = try PrivateBlueZ()
        defer { bluez.stop() }
        let folder = try TemporaryFolder("muse-run")
        defer { folder.remove() }
        try """
        name: muse-mood
        voices:
          - {name: click, kind: click}
        mood_window: 1
        moods:
          - {mood: calm, alpha: {at_least: 0.6}}
          - {mood: focused, beta: {at_least: 0.6}}
        """.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        _ = try bluez.startFake(["--adapter", "hci1", "--name", "Muse-S TEST", "muse", "--calm", "30", "--seconds", "30"])
        let name = "pj-muse-\(getpid())", port = OSCEncoder.freePort()
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", folder.path, "--name", name, "--osc-port", "\(port)", "--eeg", "muse",
                                                 "--bpm", "70"], server: server, output: output, environment: bluez.environment)
        defer { if run.isRunning { run.terminate() } }
        var values: [String: Any] = [:]
        let calm = PrivateBlueZ.waitFor(seconds: 20) {
            let status = try? Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"], timeout: 5)
            values = (try? JSONSerialization.jsonObject(with: Data((status?.stdout ?? "").utf8)) as? [String: Any]) ?? [:]
            return values["mood"] as? String == "calm"
        }
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(calm, "\(values) \(printed)")
        XCTAssertEqual(values["eeg_sensor"] as? String, "connected")
        XCTAssertEqual(values["eeg_sensor_device"] as? String, "Muse-S TEST (00:AA:BB:CC:DD:EE)")
        // The first reading needs a second of each sensor's EEG: 4 × 256/12 notifications.
        XCTAssertGreaterThanOrEqual(values["eeg_sensor_notifications"] as? Int ?? 0, 4 * 256 / 12)
        XCTAssertEqual(values["band_alpha"] as? Double ?? 0, 0.9, accuracy: 0.1)
        XCTAssertEqual(values["band_beta"] as? Double ?? 0, 0.3, accuracy: 0.1)
        XCTAssertEqual(values["eeg_sensor_alpha_relative"] as? Double ?? 0, 0.8, accuracy: 0.05)
        XCTAssertTrue(printed.contains("pulsejack: eeg sensor: connected to Muse-S TEST (00:AA:BB:CC:DD:EE), battery 87%"), printed)
        XCTAssertTrue(printed.contains("mood: calm"), printed)
    }
}
