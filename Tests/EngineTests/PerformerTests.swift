import Renders
import OSC
import Runs
import CAllocCounter
import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
import Presets

/// Several performers' hearts in one engine: each voice follows its own performer's heart under
/// the exact contract.
final class PerformerTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("performers").url
    }

    override func tearDown() { try? FileManager.default.removeItem(at: folder) }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static let duo = """
        name: duo
        bpm: 60
        performers: [alice, bob, carol]
        voices:
          - {name: a, kind: click, heart: alice}
          - {name: b, kind: click, heart: bob}
          - {name: c, kind: click, heart: carol}
          - {name: first, kind: click}
        """

    func testTwoPerformersSessionsEachVoiceOnItsOwnPerformersContractFrames() throws {
        let preset = try LoadedPreset.load(path: try write(Self.duo, "preset.yaml"))
        // Integer tempi at whole frames, so the independent reference applies as is.
        let alice = try write("time,bpm\n0,72\n7.3,81\n15,64\n", "alice.csv")
        let bob = try write("time,bpm\n0.5,90\n4.1,110\n12.7,95\n", "bob.csv")
        let source = try PerformerSessions.load([.init("alice=\(alice)"), .init("bob=\(bob)")], preset: preset, sampleRate: 48_000)
        let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: 256, messages: source.messages)
        var frames: [String: [Int64]] = [:]
        let end: Int64 = 48_000 * 20
        _ = try renderer.render(frames: end, to: folder.appendingPathComponent("duo.wav").path) { fired in
            frames[renderer.engine.handle.voiceNames[Int(fired.voice)], default: []].append(fired.frame)
        }
        XCTAssertEqual(frames["a"], ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 72), (350_400, 81), (720_000, 64)], end: end))
        // Bob's session starts at 0.5 s: until then his heart has the preset's tempo.
        XCTAssertEqual(frames["b"], ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 60), (24_000, 90), (196_800, 110), (609_600, 95)],
                                                          end: end))
        // Carol has no session: the preset's tempo from the start; the unnamed voice is Alice's.
        XCTAssertEqual(frames["c"], ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 60)], end: end))
        XCTAssertEqual(frames["first"], frames["a"])
        XCTAssertEqual(renderer.engine.handle.performerCount, 3)
        XCTAssertEqual(renderer.engine.handle.publishedTempo(of: 1), 95)
    }

    func testBadPerformersAreOneErrorNamingTheLineOrTheSession() throws {
        let unknownHeart = try write("performers: [alice]\nvoices:\n  - {name: a, kind: click, heart: zed}\n", "unknown.yaml")
        XCTAssertThrowsError(try LoadedPreset.load(path: unknownHeart)) { error in
            XCTAssertEqual("\(error)", "\(unknownHeart):3: voices[0].heart: 'zed' is not one of performers (alice)")
        }
        let twice = try write("performers: [alice, alice]\nvoices:\n  - {name: a, kind: click}\n", "twice.yaml")
        XCTAssertThrowsError(try LoadedPreset.load(path: twice)) { XCTAssertTrue("\($0)".contains("named twice"), "\($0)") }
        let ensemble = try write("performers: [ensemble]\nvoices:\n  - {name: a, kind: click}\n", "ensemble.yaml")
        XCTAssertThrowsError(try LoadedPreset.load(path: ensemble)) { XCTAssertTrue("\($0)".contains("not a performer name"), "\($0)") }
        let preset = try LoadedPreset.load(path: try write(Self.duo, "preset.yaml"))
        let session = try write("time,bpm\n0,70\n", "s.csv")
        XCTAssertThrowsError(try PerformerSessions.load([.init("dave=\(session)")], preset: preset, sampleRate: 48_000)) { error in
            XCTAssertEqual("\(error)", "\(session): dave=: not one of the preset's performers (alice, bob, carol)")
        }
        XCTAssertThrowsError(try PerformerSessions.load([.init(session), .init("alice=\(session)")], preset: preset, sampleRate: 48_000)) {
            XCTAssertTrue("\($0)".contains("a second session for performer 'alice'"), "\($0)")
        }
        // A path with "=" in it is still a path.
        XCTAssertEqual(PerformerSessions.Spec("takes/a=b.csv"), PerformerSessions.Spec("takes/a=b.csv"))
        XCTAssertNil(PerformerSessions.Spec("takes/a=b.csv").performer)
        XCTAssertEqual(PerformerSessions.Spec("bob=b.csv").performer, "bob")
    }

    func testOSCUnderAPerformersNameReachesTheirHeartAndTheSessionLogKeepsIt() throws {
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        let input = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: ["a"], performers: ["alice", "bob"]), clock: nil)
        for packet in [OSCEncoder.message("/performer/bob/pulse/bpm", [.float(88)]), OSCEncoder.message("/pulse/bpm", [.float(70)]),
                       OSCEncoder.message("/performer/bob/pulse/beat"), OSCEncoder.message("/performer/zed/pulse/bpm", [.float(80)]),
                       OSCEncoder.message("/performer/bob/voice/a/gain", [.float(1)])] {
            packet.withUnsafeBytes { input.handle(datagram: $0) }
        }
        var messages: [ControlMessage] = []
        while let message = input.ring.consumer.pop() { messages.append(message) }
        XCTAssertEqual(messages.map(\.performer), [1, 0, 1])
        XCTAssertEqual(messages.map(\.event), [.tempo(bpm: 88), .tempo(bpm: 70), .heartbeat(strength: 1)])
        XCTAssertEqual(input.counters.value(.unknownAddress), 2, "an unknown performer, and an address a performer has not")

        let header = SessionLog.headerLine(.init(sample_rate: 48_000, voices: ["a"], performers: ["alice", "bob"]))
        let log = ([header] + messages.map { SessionLog.line(for: ControlMessage(frame: 100, performer: $0.performer, $0.event))! })
            .joined(separator: "\n")
        let parsed = try SessionLog.parse(log, path: "log.jsonl")
        XCTAssertEqual(parsed.messages.map(\.performer), [1, 0, 1])
        XCTAssertEqual(parsed.header.performers, ["alice", "bob"])
        let withoutPerformers = SessionLog.headerLine(.init(sample_rate: 48_000, voices: ["a"]))
        XCTAssertThrowsError(try SessionLog.parse(withoutPerformers + "\n{\"frame\":0,\"event\":\"tempo\",\"bpm\":70,\"performer\":1}",
                                                  path: "log.jsonl")) {
            XCTAssertTrue("\($0)".contains("log.jsonl:2: performer"), "\($0)")
        }
    }

    func testEachPerformersHandsAndMoodAreTheirOwn() throws {
        let preset = try LoadedPreset.load(path: try write("""
            performers: [alice, bob]
            voices: [{name: drum, kind: click, on_beat: false}]
            regions: {right-down: drum}
            moods:
              - {mood: focused, beta: {at_least: 0.6}, theta: {below: 0.3}}
              - {mood: drowsy, theta: {at_least: 0.3}}
            """, "preset.yaml"))
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        configuration.mood = preset.preset.moodModel
        configuration.regions = preset.preset.regionModel
        let input = try OSCInput(configuration: configuration,
                                 routes: OSCRoutes(voices: ["drum"], regions: try preset.regionTable().names, performers: preset.performerNames),
                                 clock: FixedFrameClock(origin: 0, now: 0))
        func send(_ address: String, _ values: [Float]) {
            OSCEncoder.message(address, values.map { .float($0) }).withUnsafeBytes { input.handle(datagram: $0) }
        }
        func hits() -> Int {
            var count = 0
            while let message = input.ring.consumer.pop() { if case .regionHit = message.event { count += 1 } }
            return count
        }
        // Both stand; Alice's right hand goes down: a hit. Bob's goes down too: his own hit (one
        // model for both would have his hand "already inside").
        send("/pose/hands", [0, 0.5, 0, 0.5])
        send("/performer/bob/pose/hands", [0, 0.5, 0, 0.5])
        send("/pose/hands", [0, 0.5, 0, 0.05])
        XCTAssertEqual(hits(), 1)
        send("/performer/bob/pose/hands", [0, 0.5, 0, 0.05])
        XCTAssertEqual(hits(), 1, "bob's hand entering is his own hit")
        // Alice's hand jitters inside her hysteresis while Bob lifts his and strikes again.
        send("/performer/alice/pose/hands", [0, 0.5, 0, 0.15])
        send("/performer/bob/pose/hands", [0, 0.5, 0, 0.5])
        send("/performer/alice/pose/hands", [0, 0.5, 0, 0.05])
        send("/performer/bob/pose/hands", [0, 0.5, 0, 0.05])
        XCTAssertEqual(hits(), 1, "only bob's second strike")

        // Moods: each performer's band powers decide their own.
        send("/muse/elements/beta_absolute", [0.7])
        send("/muse/elements/theta_absolute", [0.2])
        send("/performer/bob/muse/elements/theta_absolute", [0.6])
        XCTAssertEqual(input.mood(of: 0), "focused")
        XCTAssertEqual(input.mood, "focused", "the unprefixed addresses are the first performer's")
        XCTAssertEqual(input.mood(of: 1), "drowsy")
        XCTAssertEqual(input.counters.value(.unknownAddress), 0)
    }

    func testTheEnsembleFollowsTheMeanTempoAndTogetherFiresWhereTheHeartsAlign() throws {
        let preset = try LoadedPreset.load(path: try write("""
            performers: [alice, bob]
            ensemble: {tempo: mean}
            voices:
              - {name: a, kind: click, heart: alice}
              - {name: b, kind: click, heart: bob}
              - {name: all, kind: click, heart: ensemble}
              - {name: aligned, kind: click, together: [alice, bob], window_ms: 30}
            """, "ensemble.yaml"))
        let alice = try write("time,bpm\n0,70\n20,80\n", "alice.csv"), bob = try write("time,bpm\n0,72\n35,110\n", "bob.csv")
        let source = try PerformerSessions.load([.init("alice=\(alice)"), .init("bob=\(bob)")], preset: preset, sampleRate: 48_000)
        let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: 256, messages: source.messages)
        var frames: [String: [Int64]] = [:]
        let end: Int64 = 48_000 * 60
        _ = try renderer.render(frames: end, to: folder.appendingPathComponent("ensemble.wav").path) { fired in
            frames[renderer.engine.handle.voiceNames[Int(fired.voice)], default: []].append(fired.frame)
        }
        let aliceBeats = ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 70), (960_000, 80)], end: end)
        let bobBeats = ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 72), (1_680_000, 110)], end: end)
        XCTAssertEqual(frames["a"], aliceBeats)
        XCTAssertEqual(frames["b"], bobBeats)
        // The mean of the two tempi, changing where either changes: 71, then 76, then 95.
        XCTAssertEqual(frames["all"], ReferenceBeats.frames(sampleRate: 48_000, changes: [(0, 71), (960_000, 76), (1_680_000, 95)],
                                                            end: end))
        // Every pair of beats, one of each, at most 30 ms (1440 frames) apart, sounds at the later
        // one (the beats are far sparser than the window, so no beat has two partners).
        var aligned: [Int64] = []
        for a in aliceBeats { for b in bobBeats where abs(a - b) <= 1440 { aligned.append(max(a, b)) } }
        XCTAssertGreaterThan(aligned.count, 3, "the two hearts drift through alignment several times in a minute")
        XCTAssertEqual(frames["aligned"], aligned.sorted())
        XCTAssertEqual(renderer.engine.handle.publishedTempo(of: 2), 95, "the ensemble's tempo")
    }

    func testEnsembleAndTogetherMistakesAreOneErrorEach() throws {
        for (yaml, expected) in [
            ("performers: [a, b]\nensemble: {tempo: loudest}\nvoices:\n  - {name: x, kind: click, heart: ensemble}\n", "ensemble.tempo: 'loudest'"),
            ("performers: [a, b]\nensemble: {tempo: leader}\nvoices:\n  - {name: x, kind: click, heart: ensemble}\n", "needs a leader"),
            ("performers: [a, b]\nvoices:\n  - {name: x, kind: click, together: [a, a]}\n", "voices[0].together: needs two different"),
            ("performers: [a, b]\nvoices:\n  - {name: x, kind: click, together: [a, b], window_ms: 5000}\n", "outside 1…1000 ms"),
            ("voices:\n  - {name: x, kind: click, heart: ensemble}\n", "the preset names no performers"),
        ] {
            let path = try write(yaml, "bad-\(UUID().uuidString).yaml")
            XCTAssertThrowsError(try LoadedPreset.load(path: path)) { XCTAssertTrue("\($0)".contains(expected), "\($0) lacks \(expected)") }
        }
    }

    func testOnePerformersDropoutFadesOnlyTheirVoicesAndTheirPPGIsTheirs() throws {
        // Alice on the left, Bob on the right (full pan: each channel carries one of them).
        let preset = try LoadedPreset.load(path: try write("""
            performers: [alice, bob]
            dropout: {seconds: 0.5, action: fade, fade_seconds: 0.25}
            voices:
              - {name: a, kind: click, heart: alice, pan: -1}
              - {name: b, kind: click, heart: bob, pan: 1}
            """, "fade.yaml"))
        let messages = [ControlMessage(frame: 0, performer: 0, .tempo(bpm: 120)), ControlMessage(frame: 0, performer: 1, .tempo(bpm: 120)),
                        ControlMessage(frame: 48_000, performer: 1, .heartPresence(false))]
        let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: 256, messages: messages)
        let out = folder.appendingPathComponent("fade.wav").path
        _ = try renderer.render(frames: 48_000 * 3, to: out)
        let wav = try WavFile(path: out)
        let beats = stride(from: 0, to: 48_000 * 3, by: 24_000)
        XCTAssertEqual(beats.map { wav.channels[0][$0] }, Array(repeating: 1, count: 6), "Alice plays on at full level")
        // Bob's beats: full before his dropout (at 1 s), silent once the 0.25 s fade is over.
        XCTAssertEqual(beats.map { wav.channels[1][$0] }.prefix(2), [1, 1])
        XCTAssertEqual(beats.map { wav.channels[1][$0] }.suffix(3), [0, 0, 0], "Bob's voice faded out")

        // Live: a pulse wave under Bob's name is Bob's detector's, and only his data arrives.
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        let hearts = HeartWatch(performers: 2, seconds: 0.5, fades: true)
        let input = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: ["a", "b"], performers: ["alice", "bob"]),
                                 clock: nil, hearts: hearts)
        // 6 s of a 72 BPM pulse wave at 100 samples a second: a rise, then an exponential fall.
        let wave = (0..<600).map { sample -> Float in
            let since = (Double(sample) / 100).truncatingRemainder(dividingBy: 60.0 / 72)
            return Float(since < 0.12 ? since / 0.12 : exp(-(since - 0.12) / 0.2))
        }
        for chunk in stride(from: 0, to: wave.count, by: 10) {
            OSCEncoder.message("/performer/bob/pulse/ppg", wave[chunk..<chunk + 10].map { .float($0) }).withUnsafeBytes { input.handle(datagram: $0) }
        }
        var bobsBeats = 0, others = 0
        while let message = input.ring.consumer.pop() {
            if case .heartbeat = message.event, message.performer == 1 { bobsBeats += 1 } else { others += 1 }
        }
        XCTAssertGreaterThanOrEqual(bobsBeats, 5, "Bob's beats, found by his own detector (7 in 6 s at 72 BPM)")
        XCTAssertEqual(others, 0)
        // Dropouts, each on its own: Alice sends once, then nothing; Bob keeps sending; after 0.5 s
        // only Alice's heart is quiet.
        input.start()
        defer { input.stop() }
        OSCEncoder.send(OSCEncoder.message("/performer/alice/pulse/bpm", [.float(72)]), port: input.boundPort)
        let started = Date()
        while Date().timeIntervalSince(started) < 1.2 {
            OSCEncoder.send(OSCEncoder.message("/performer/bob/pulse/bpm", [.float(72)]), port: input.boundPort)
            usleep(100_000)
        }
        XCTAssertEqual(hearts.check(), [.lost(performer: 0)])
        XCTAssertTrue(hearts.inDropout(performer: 0))
        XCTAssertFalse(hearts.inDropout(performer: 1))
    }

    func testThreeHeartsOnTheProcessThreadAllocateNothing() throws {
        guard pj_alloc_counter_live() != 0 else { throw XCTSkip("the allocation counter is left out under ThreadSanitizer") }
        // Three hearts, the ensemble's (a median) and a voice on aligned beats.
        let preset = try LoadedPreset.load(path: try write(Self.duo + """

              - {name: group, kind: click, heart: ensemble}
              - {name: aligned, kind: click, together: [alice, carol], window_ms: 200}
            ensemble: {tempo: median}
            """, "preset.yaml"))
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try EngineGraph.build(preset: preset, sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        XCTAssertEqual(engine.handle.ensemble, .median)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { buffer.deallocate() }
        engine.warmUp()
        pj_rt_counters_reset()
        for period in 0..<2000 {
            // Each heart's tempo changes, and explicit beats arrive, at odd frames of the period.
            if period % 50 == 0 {
                for performer in UInt8(0)..<3 {
                    ring.producer.push(ControlMessage(frame: engine.framePosition + 17 + Int64(performer) * 31, performer: performer,
                                                      .tempo(bpm: 200 + Double(period % 300) / 10 + Double(performer))))
                }
            }
            if period % 37 == 0 { ring.producer.push(ControlMessage(frame: engine.framePosition + 101, performer: 2, .heartbeat(strength: 1))) }
            // Bob's dropout fades his voices out and back.
            if period == 500 || period == 1200 {
                ring.producer.push(ControlMessage(frame: engine.framePosition + 7, performer: 1, .heartPresence(period == 1200)))
            }
            engine.process(frames: 256, left: buffer, right: buffer + 256)
        }
        XCTAssertEqual(pj_rt_allocation_count(), 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
        XCTAssertGreaterThan(engine.handle.counters.snapshot()[.voicesFired], 150, "three hearts near 200 BPM for 10.7 s, four voices")
        XCTAssertNotNil(engine.handle.publishedTempo(of: 3), "the ensemble's heart ran")
    }
}
