import OSC
import Inputs
import Foundation
import JackPeers
import TestSupport
import XCTest

/// Real UDP OSC packets to `pulsejack run` on the private jackd, heard by JACK clients.
final class OSCLiveTests: XCTestCase {
    private var folder: URL!
    private var run: Process?

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("osc").url
    }

    override func tearDown() {
        if let run, run.isRunning { run.interrupt(); run.waitUntilExit() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts pulsejack with a click that only triggers fire, listening on a free OSC port.
    private func start(server: String) throws -> (client: String, port: UInt16) {
        let preset = folder.appendingPathComponent("pad")
        try FileManager.default.createDirectory(at: preset, withIntermediateDirectories: true)
        try "voices:\n  - {name: pad, kind: click, on_beat: false}\n"
            .write(to: preset.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let client = "pj-osc-\(getpid())", port = OSCEncoder.freePort()
        run = try Subprocess.startPulsejack(["run", "--preset", preset.path, "--name", client, "--osc-port", "\(port)"],
                                            server: server)
        try Subprocess.waitForPorts(of: client, server: server)
        return (client, port)
    }

    private func capture(_ client: String, server: String, seconds: Int, while sending: () -> Void) throws -> [Float] {
        guard let jackCapture = Subprocess.which("jack_capture") else { throw XCTSkip("jack_capture is not installed") }
        let wav = folder.appendingPathComponent("capture.wav").path
        let recorder = Process()
        Subprocess.keepForTheSuite(recorder)
        recorder.executableURL = URL(fileURLWithPath: jackCapture)
        recorder.arguments = ["-d", "\(seconds)", "-c", "1", "-p", "\(client):out_L", "--daemon", wav]
        recorder.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
        try recorder.run()
        usleep(500_000)
        sending()
        recorder.waitUntilExit()
        return try WavFile(path: wav).channels[0]
    }

    func testTimetaggedBundlesSoundAtExactlyTheirSpacing() throws {
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let (client, port) = try start(server: server)
        // An ear that stamps impulses with JACK's frame time, so a cycle it misses cannot shift the rest.
        let ear = try CaptureClient(name: "pj-osc-ear-\(getpid())")
        try ear.connect(from: "\(client):out_L")
        usleep(300_000)
        // Five triggers scheduled ahead, 0.5 s apart by their timetags (24 000 frames at 48 kHz),
        // sent now in one go and in separate packets.
        let base = OSCEncoder.now() + (1 << 32)  // one second from now
        for index in 0..<5 {
            let packet = OSCEncoder.bundle(timetag: base + UInt64(index) << 31,
                                           [OSCEncoder.message("/voice/pad/trigger", [.float(1)])])
            OSCEncoder.send(packet, port: port)
        }
        usleep(3_700_000)
        ear.close()
        let onsets = ear.onsetJackFrames
        // What pulsejack says JACK took from it: cycles it was not run for.
        let reply = try XCTUnwrap(OSCEncoder.send(OSCEncoder.message("/pulse/status"), port: port, awaitReply: true))
        let status = try XCTUnwrap(OSCPacket.decode(reply).first).arguments
        func count(_ name: String) -> Int64 {
            guard let index = status.firstIndex(of: .string(name)), case .int(let value) = status[index + 1] else { return 0 }
            return value
        }
        let skipped = count("frames_skipped") + count("frames_rewound")
        // A cycle the dummy driver runs late on a loaded machine may lose one impulse.
        XCTAssertGreaterThanOrEqual(onsets.count, 4, "\(onsets)")
        XCTAssertLessThanOrEqual(onsets.count, 5, "\(onsets)")
        // Each onset against the timetags' grid (24 000 frames apart), from the place most onsets share.
        let first = onsets.first ?? 0
        let residuals = onsets.map { ($0 - first) % 24_000 > 12_000 ? ($0 - first) % 24_000 - 24_000 : ($0 - first) % 24_000 }
        let baseline = Dictionary(grouping: residuals, by: { $0 }).max { $0.value.count < $1.value.count }?.key ?? 0
        let displacements = residuals.map { $0 - baseline }
        if skipped == 0 {
            XCTAssertEqual(displacements, Array(repeating: 0, count: onsets.count), "spacing \(zip(onsets.dropFirst(), onsets).map { $0 - $1 })")
        } else {
            // JACK lost cycles (reported): a lost cycle is applied once the next reading confirms
            // it, so an onset in the period right after one may sit whole periods off, never more
            // than the frames pulsejack reports skipping.
            XCTAssertTrue(displacements.allSatisfy { $0 % 256 == 0 && abs($0) <= skipped }, "\(displacements), \(skipped) frames skipped")
        }
    }

    /// The starved-queue report: 4,100 bundles an hour ahead, then a tempo change that must play.
    func testAnHourOfFutureBundlesCannotBlockATempoChange() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        let (_, port) = try start(server: server)
        let hourAhead = OSCEncoder.now() + (3600 << 32)
        for _ in 0..<4100 {
            OSCEncoder.send(OSCEncoder.bundle(timetag: hourAhead, [OSCEncoder.message("/voice/pad/gain", [.float(0.35)])]), port: port)
        }
        OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(120)]), port: port)
        usleep(500_000)
        let reply = try XCTUnwrap(OSCEncoder.send(OSCEncoder.message("/pulse/status"), port: port, awaitReply: true))
        let arguments = try XCTUnwrap(OSCPacket.decode(reply).first).arguments
        var status: [String: Double] = [:]
        for pair in stride(from: 0, to: arguments.count - 1, by: 2) {
            guard case .string(let name) = arguments[pair] else { continue }
            switch arguments[pair + 1] {
            case .int(let value): status[name] = Double(value)
            case .float(let value): status[name] = value
            default: break
            }
        }
        XCTAssertEqual(status["bpm"], 120, "the tempo changed: \(status)")
        XCTAssertEqual(status["queue_overflows"], 0)
        XCTAssertEqual((status["too_far_ahead"] ?? 0) + (status["kernel_drops"] ?? 0), 4100, "\(status)")
    }

    func testVoiceMessagesChangeWhatPlaysAndStatusReplies() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        guard let oscsend = Subprocess.which("oscsend") else { throw XCTSkip("oscsend (liblo-tools) is not installed") }
        let (client, port) = try start(server: server)
        let audio = try capture(client, server: server, seconds: 3) {
            // A real peer, liblo's oscsend: gain 0.25, then a trigger; then the voice disabled.
            _ = try? Subprocess.run(oscsend, ["localhost", "\(port)", "/voice/pad/gain", "f", "0.25"])
            usleep(300_000)
            _ = try? Subprocess.run(oscsend, ["localhost", "\(port)", "/voice/pad/trigger", "f", "1"])
            usleep(300_000)
            _ = try? Subprocess.run(oscsend, ["localhost", "\(port)", "/voice/pad/enable", "i", "0"])
            usleep(300_000)
            _ = try? Subprocess.run(oscsend, ["localhost", "\(port)", "/voice/pad/trigger", "f", "1"])
        }
        let onsets = WavFile.onsets(audio, threshold: 0.1)
        XCTAssertEqual(onsets.count, 1, "only the trigger before disabling sounds")
        XCTAssertEqual(audio[onsets[0]], 0.25, accuracy: 1e-6, "at the new gain")

        let reply = try XCTUnwrap(OSCEncoder.send(OSCEncoder.message("/pulse/status"), port: port, awaitReply: true))
        let status = try XCTUnwrap(OSCPacket.decode(reply).first)
        XCTAssertEqual(status.address, "/pulse/status")
        var counters: [String: Double] = [:]
        for pair in stride(from: 0, to: status.arguments.count - 1, by: 2) {
            if case .string(let name) = status.arguments[pair], case .int(let value) = status.arguments[pair + 1] {
                counters[name] = Double(value)
            }
        }
        XCTAssertEqual(counters["received"], 5, "four messages and this request: \(counters)")
        XCTAssertNotNil(counters["xruns"])
        XCTAssertEqual(counters["voices_fired"], 1)
    }
}

/// `run --record-session` then `render --session`: the same events, frame for frame.
final class RecordAndReplayTests: XCTestCase {
    func testALiveRunReRendersOfflineIdentically() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        let temporary = try TemporaryFolder("record")
        defer { temporary.remove() }
        let folder = temporary.url
        let log = folder.appendingPathComponent("session.jsonl").path
        let liveEvents = folder.appendingPathComponent("live.jsonl").path
        let port = OSCEncoder.freePort()
        let run = try Subprocess.startPulsejack(["run", "--bpm", "80", "--name", "pj-record-\(getpid())", "--osc-port", "\(port)",
                                                 "--record-session", log, "--events-out", liveEvents], server: server)
        usleep(1_000_000)
        // A performance: triggers, a tempo change, a gain change, a timetagged bundle, a bad packet.
        OSCEncoder.send(OSCEncoder.message("/voice/bell/trigger", [.float(0.8)]), port: port)
        usleep(300_000)
        OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(95)]), port: port)
        usleep(300_000)
        OSCEncoder.send(OSCEncoder.message("/voice/tick/gain", [.float(0.1)]), port: port)
        OSCEncoder.send(OSCEncoder.bundle(timetag: OSCEncoder.now() + (1 << 31), [OSCEncoder.message("/voice/heart/trigger")]), port: port)
        OSCEncoder.send([1, 2, 3], port: port)
        usleep(1_500_000)
        run.interrupt()
        run.waitUntilExit()
        XCTAssertEqual(run.terminationStatus, 0)

        let offlineEvents = folder.appendingPathComponent("offline.jsonl").path
        let render = try Subprocess.run(Subprocess.pulsejack, ["render", "--session", log, "--out",
                                                               folder.appendingPathComponent("offline.wav").path,
                                                               "--events-out", offlineEvents])
        XCTAssertEqual(render.status, 0, render.stderr)
        let live = try String(contentsOfFile: liveEvents, encoding: .utf8).split(separator: "\n")
        let offline = try String(contentsOfFile: offlineEvents, encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThan(live.count, 10)
        XCTAssertEqual(offline, live)
        let recorded = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(recorded.contains("\"event\":\"voice_trigger\""), recorded)
        XCTAssertTrue(recorded.contains("\"bpm\":95"), recorded)
    }
}

/// `run --replay`: a recorded session played live.
final class LiveReplayTests: XCTestCase {
    func testReplayingATempoSessionPlaysItsBeatsLive() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        let temporary = try TemporaryFolder("replay")
        defer { temporary.remove() }
        let folder = temporary.url
        let session = folder.appendingPathComponent("rr.csv")
        // RR intervals of 0.5 s: beats, and 120 BPM, from 0.2 s on.
        try "time,rr\n0.2,0.5\n0.7,0.5\n1.2,0.5\n".write(to: session, atomically: true, encoding: .utf8)
        let events = folder.appendingPathComponent("events.jsonl").path
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--no-osc", "--name", "pj-replay-\(getpid())", "--replay", session.path,
                                                 "--events-out", events], server: server)
        usleep(2_500_000)
        run.interrupt()
        run.waitUntilExit()
        let frames = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").map { line -> Int in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])["frame"] as! Int
        }
        XCTAssertGreaterThanOrEqual(frames.count, 4, "\(frames)")
        // Explicit beats 0.5 s apart, and the clock's beats at 120 BPM from the first: all 24 000 frames apart.
        let distinct = Array(Set(frames)).sorted()
        XCTAssertEqual(Set(zip(distinct.dropFirst(), distinct).map { $0 - $1 }), [24_000], "\(distinct)")
    }
}

/// Two performers live: each replays their own session and sends OSC under their name; the
/// session log keeps whose heart each message was, and re-renders offline identically.
final class PerformersLiveTests: XCTestCase {
    func testTwoPerformersReplayedLiveRecordWhoseHeartAndReRenderIdentically() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        let temporary = try TemporaryFolder("duo")
        defer { temporary.remove() }
        let folder = temporary.url
        func write(_ text: String, _ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let preset = try write("performers: [alice, bob]\nvoices:\n  - {name: a, kind: click, heart: alice}\n"
                               + "  - {name: b, kind: click, heart: bob}\n", "preset.yaml")
        let alice = try write("time,bpm\n0,150\n1.5,170\n", "alice.csv"), bob = try write("time,bpm\n0,110\n", "bob.csv")
        let log = folder.appendingPathComponent("session.jsonl").path, liveEvents = folder.appendingPathComponent("live.jsonl").path
        let port = OSCEncoder.freePort()
        let run = try Subprocess.startPulsejack(["run", "--preset", preset, "--name", "pj-duo-\(getpid())", "--osc-port", "\(port)",
                                                 "--replay", "alice=\(alice)", "--replay", "bob=\(bob)",
                                                 "--record-session", log, "--events-out", liveEvents], server: server)
        usleep(2_000_000)
        OSCEncoder.send(OSCEncoder.message("/performer/bob/pulse/bpm", [.float(125)]), port: port)
        usleep(1_500_000)
        let status = try OSCStatusQuery.ask(host: "127.0.0.1", port: port)
        run.interrupt()
        run.waitUntilExit()
        XCTAssertEqual(run.terminationStatus, 0)
        XCTAssertEqual(status.first { $0.0 == "bpm_alice" }?.1, .float(170))
        XCTAssertEqual(status.first { $0.0 == "bpm_bob" }?.1, .float(125))

        let recorded = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(recorded.contains("\"performers\":[\"alice\",\"bob\"]"), recorded)
        XCTAssertTrue(recorded.contains("\"bpm\":125,\"event\":\"tempo\",\"frame\":") && recorded.contains("\"performer\":1"), recorded)
        let offlineEvents = folder.appendingPathComponent("offline.jsonl").path
        let render = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", preset, "--session", log, "--out",
                                                               folder.appendingPathComponent("offline.wav").path,
                                                               "--events-out", offlineEvents])
        XCTAssertEqual(render.status, 0, render.stderr)
        let live = try String(contentsOfFile: liveEvents, encoding: .utf8).split(separator: "\n")
        let offline = try String(contentsOfFile: offlineEvents, encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThan(live.filter { $0.contains("\"voice\":\"a\"") }.count, 5)
        XCTAssertGreaterThan(live.filter { $0.contains("\"voice\":\"b\"") }.count, 4)
        XCTAssertEqual(offline, live)
    }
}
