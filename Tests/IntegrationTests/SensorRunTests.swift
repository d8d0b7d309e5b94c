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

        try checkTheLoggedIntervals(session, sent: strap.notifications.flatMap { $0["rr"] as? [Double] ?? [] }, status: status.stdout)

        // The ear heard a click for every beat the engine fired (none lost between them).
        let fired = try String(contentsOfFile: liveEvents, encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThan(fired.count, 10)
        XCTAssertGreaterThanOrEqual(ear.onsetJackFrames.count, fired.count - 2)

        try checkTheSessionReRenders(session, preset: Subprocess.repository.appendingPathComponent("presets/click").path, in: folder, fired: fired)
    }

    /// Every RR interval the strap `sent` is in the session log, as sent, with the beats it
    /// predicted; the heart's variability in the status (as JSON) is the formula's on the
    /// intervals the strap had sent by then.
    private func checkTheLoggedIntervals(_ session: String, sent: [Double], status: String) throws {
        let values = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any] ?? [:]
        let lines = try String(contentsOfFile: session, encoding: .utf8).split(separator: "\n").dropFirst()
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let logged = lines.filter { $0["event"] as? String == "rr" }.flatMap { $0["values"] as? [Double] ?? [] }
        XCTAssertGreaterThan(logged.count, 10)
        XCTAssertEqual(logged, Array(sent.prefix(logged.count)))
        XCTAssertGreaterThan(lines.filter { $0["event"] as? String == "heartbeat" }.count, 10, "predicted beats")
        // The heart's variability in the status: the formula's on the intervals the strap had sent by then.
        let rmssd = try XCTUnwrap(values["rmssd_ms"] as? Double, status), sdnn = try XCTUnwrap(values["sdnn_ms"] as? Double)
        let matching = (2...sent.count).filter { count in
            guard let expected = ReferenceVariability.of(Array(sent.prefix(count)), window: 30) else { return false }
            return abs(expected.rmssd - rmssd) < 1e-3 && abs(expected.sdnn - sdnn) < 1e-3
        }
        XCTAssertFalse(matching.isEmpty, "RMSSD \(rmssd), SDNN \(sdnn) ms are the formula's on the first n intervals sent, for some n")
        XCTAssertGreaterThanOrEqual(matching.first ?? 0, 8)
        XCTAssertFalse(lines.contains { $0["event"] as? String == "tempo" }, "the strap's beats are the heart: --bpm starts no clock beside them")
    }

    /// The session log rendered offline fires exactly what the run `fired`.
    private func checkTheSessionReRenders(_ session: String, preset: String, in folder: TemporaryFolder, fired: [Substring]) throws {
        let offlineEvents = folder.file("offline.jsonl")
        let render = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", preset, "--session", session,
                                                               "--out", folder.file("offline.wav"), "--events-out", offlineEvents])
        XCTAssertEqual(render.status, 0, render.stderr)
        XCTAssertEqual(try String(contentsOfFile: offlineEvents, encoding: .utf8).split(separator: "\n"), fired)
    }

    /// `pulsejack run --heart polar-ecg`: a fake H10 streaming 20 s of a real ECG (record 208 at
    /// 130 Hz) with its own clock's time stamps; every beat the engine plays sits the same delay
    /// after its R-peak as scipy finds it (within 10 ms, past the first seconds, when the least
    /// radio delay is known; a smaller delay after an xrun, which sets JACK's clock back), the
    /// preset's --bpm starts no clock beside them, and the session re-renders identically.
    func testAPolarH10sECGPlaysEachBeatAFixedDelayAfterItsRPeak() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        if TestServer.isPipeWire { throw XCTSkip("a sensor reaches the engine the same way on every server: the jackd2 pass runs this") }
        let bluez = try PrivateBlueZ()
        defer { bluez.stop() }
        let folder = try TemporaryFolder("ecg-run")
        defer { folder.remove() }
        let peaks = try RecordedECG.load(end: 20, into: folder.file("ecg.json")).peaks
        let h10 = try bluez.startFake(["--adapter", "hci1", "--name", "Polar H10 ECGTEST", "h10", "--ecg", folder.file("ecg.json")])

        let name = "pj-ecg-\(getpid())", port = OSCEncoder.freePort()
        let session = folder.file("session.jsonl"), liveEvents = folder.file("live.jsonl")
        let preset: String = Subprocess.repository.appendingPathComponent("presets/click").path
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", preset, "--name", name, "--osc-port", "\(port)",
                                                 "--heart", "polar-ecg:Polar H10", "--ecg-delay", "1", "--bpm", "60",
                                                 "--record-session", session, "--events-out", liveEvents],
                                                server: server, output: output, environment: bluez.environment)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server))
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 40) { h10.records.contains { $0["done"] != nil } }, h10.stderr)
        usleep(1_500_000)  // the last beats' delay
        let status = try Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"])
        let values: [String: Any] = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] ?? [:]
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertTrue(printed.contains("pulsejack: heart sensor: connected to Polar H10 ECGTEST (00:AA:BB:CC:DD:EE)"), printed)
        let command: String? = h10.records.first { $0["command"] != nil }?["command"] as? String
        XCTAssertEqual(command, "02000001820001010e00", "the ECG start command")
        XCTAssertEqual(values["heart_sensor"] as? String, "connected", status.stdout)
        XCTAssertEqual(values["heart_sensor_contact"] as? String, "yes")
        XCTAssertEqual(values["heart_sensor_notifications"] as? Int, h10.notifications.count)
        XCTAssertEqual(values["heart_sensor_malformed"] as? Int, 0)
        XCTAssertEqual(values["heart_sensor_ecg_late"] as? Int, 0)
        XCTAssertEqual(values["dropouts"] as? Int, 0)

        let lines: [[String: Any]] = try String(contentsOfFile: session, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let rate = Double(lines.first?["sample_rate"] as? Int ?? 48_000)
        XCTAssertFalse(lines.contains { $0["event"] as? String == "tempo" }, "the ECG's beats are the heart: --bpm starts no clock beside them")
        let beatLines = lines.filter { $0["event"] as? String == "heartbeat" }
        let beats: [Double] = beatLines.compactMap { (line: [String: Any]) -> Double? in (line["frame"] as? Int).map { Double($0) / rate } }
        XCTAssertEqual(values["heart_sensor_ecg_beats"] as? Int, beats.count, "rr \(lines.filter { $0["event"] as? String == "rr" }.count) \(beatLines.prefix(5)) \(values)")
        // The delay from R-peak to beat, between JACK's clock and the sensor's: the same for
        // every beat, unless an xrun moved JACK's clock (`BeatDelayRuns`).
        let judged = peaks.filter { $0 > 5 && $0 < 19 }
        XCTAssertGreaterThan(judged.count, 20)
        let xruns = LiveGrid.xruns(in: printed).xruns
        let runs = BeatDelayRuns.runs(beats: beats, peaks: judged)
        XCTAssertNotNil(runs, "a peak without its beat: beats \(beats), peaks \(peaks)")
        XCTAssertLessThanOrEqual(runs?.count ?? 0, 1 + xruns, "delays \(runs ?? []) with \(xruns) xruns: beats \(beats), peaks \(peaks)\n\(printed)")

        let fired = try String(contentsOfFile: liveEvents, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(fired.count, beats.count)
        try checkTheSessionReRenders(session, preset: preset, in: folder, fired: fired)
    }

    /// An H10 that refuses to start its ECG (on its charger): said once, with Polar's reason.
    func testAnH10RefusingItsECGIsSaidWithPolarsReason() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        if TestServer.isPipeWire { throw XCTSkip("a sensor reaches the engine the same way on every server: the jackd2 pass runs this") }
        let bluez = try PrivateBlueZ()
        defer { bluez.stop() }
        let folder = try TemporaryFolder("ecg-refused")
        defer { folder.remove() }
        try #"{"rate": 130, "start": 0, "samples": [0], "peaks": []}"#.write(toFile: folder.file("ecg.json"), atomically: true, encoding: .utf8)
        let h10 = try bluez.startFake(["--adapter", "hci1", "--name", "Polar H10 CHARGING", "h10", "--ecg", folder.file("ecg.json"), "--refuse", "13"])
        let name = "pj-ecg-refused-\(getpid())", port = OSCEncoder.freePort()
        let preset: String = Subprocess.repository.appendingPathComponent("presets/click").path
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", preset, "--name", name, "--osc-port", "\(port)", "--heart", "polar-ecg"],
                                                server: server, output: output, environment: bluez.environment)
        defer { if run.isRunning { run.terminate() } }
        var values: [String: Any] = [:]
        let said = PrivateBlueZ.waitFor(seconds: 20) {
            let status = try? Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"], timeout: 5)
            values = (try? JSONSerialization.jsonObject(with: Data((status?.stdout ?? "").utf8)) as? [String: Any]) ?? [:]
            return values["heart_sensor_problem"] != nil
        }
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(said, "\(values) \(printed) \(h10.stderr)")
        let reason = "Polar H10 CHARGING (00:AA:BB:CC:DD:EE) refused to start its ECG: device in charger"
        XCTAssertEqual(values["heart_sensor_problem"] as? String, reason)
        XCTAssertEqual(printed.components(separatedBy: "refused to start its ECG").count, 2, printed)
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
