import OSC
import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Engine
@testable import Presets

final class OSCInputTests: XCTestCase {
    private func input(voices: [String] = ["click"], now: Int64 = 0) throws -> OSCInput {
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        return try OSCInput(configuration: configuration, routes: OSCRoutes(voices: voices),
                            clock: FixedFrameClock(origin: 1 << 40, now: now))
    }

    private func feed(_ input: OSCInput, _ packet: [UInt8]) {
        packet.withUnsafeBytes { input.handle(datagram: $0) }
    }

    func testTimetaggedBundlesLandAtTheirFramesAndBareMessagesAtTheNextPeriod() throws {
        let osc = try input(now: 1000)
        let half: UInt64 = 1 << 31  // half a second in NTP fraction units
        feed(osc, OSCEncoder.bundle(timetag: (1 << 40) + half, [OSCEncoder.message("/voice/click/trigger", [.float(0.5)])]))
        feed(osc, OSCEncoder.bundle(timetag: (1 << 40) + 2 * half, [
            OSCEncoder.message("/pulse/bpm", [.float(72)]),
            OSCEncoder.bundle(timetag: (1 << 40) + 3 * half, [OSCEncoder.message("/voice/click/gain", [.float(0.25)])]),
        ]))
        feed(osc, OSCEncoder.message("/voice/click/enable", [.int(0)]))
        feed(osc, OSCEncoder.bundle(timetag: 1 << 40, [OSCEncoder.message("/pulse/beat")]))  // frame 0 < now 1000: late
        var got: [ControlMessage] = []
        while let message = osc.ring.consumer.pop() { got.append(message) }
        XCTAssertEqual(got, [
            ControlMessage(frame: 24_000, .voiceTrigger(voice: 0, velocity: 0.5)),
            ControlMessage(frame: 48_000, .tempo(bpm: 72)),
            ControlMessage(frame: 72_000, .voiceParameter(voice: 0, .gain(0.25))),
            ControlMessage(.voiceParameter(voice: 0, .enable(false))),
            ControlMessage(.heartbeat(strength: 1)),
        ])
        XCTAssertEqual(osc.counters.value(.lateBundles), 1)
    }

    func testTimetagsBeyondTheHorizonAreRefusedAndCounted() throws {
        let osc = try input(now: 0)
        let second: UInt64 = 1 << 32
        for _ in 0..<4100 {
            feed(osc, OSCEncoder.bundle(timetag: (1 << 40) + 3600 * second, [OSCEncoder.message("/voice/click/gain", [.float(0.35)])]))
        }
        feed(osc, OSCEncoder.bundle(timetag: (1 << 40) + 59 * second, [OSCEncoder.message("/voice/click/gain", [.float(0.5)])]))
        feed(osc, OSCEncoder.message("/pulse/bpm", [.float(120)]))
        var got: [ControlMessage] = []
        while let message = osc.ring.consumer.pop() { got.append(message) }
        XCTAssertEqual(got, [ControlMessage(frame: 59 * 48_000, .voiceParameter(voice: 0, .gain(0.5))), ControlMessage(.tempo(bpm: 120))])
        XCTAssertEqual(osc.counters.value(.tooFarAhead), 4100)
        XCTAssertEqual(osc.counters.value(.dropped), 0)
    }

    func testImplausibleUnknownAndMalformedInputIsCountedNotFatal() throws {
        let osc = try input()
        feed(osc, OSCEncoder.message("/pulse/bpm", [.float(300)]))
        feed(osc, OSCEncoder.message("/pulse/bpm", [.float(.nan)]))
        feed(osc, OSCEncoder.message("/pulse/rr", [.float(3)]))
        feed(osc, OSCEncoder.message("/voice/tuba/gain", [.float(1)]))
        feed(osc, OSCEncoder.message("/voice/click/gain", [.string("loud")]))
        feed(osc, OSCEncoder.message("/voice/click/gain", [.float(1), .float(2)]))
        feed(osc, Array(OSCEncoder.message("/pulse/bpm", [.float(70)]).dropLast(4)))  // truncated
        feed(osc, [0x2F, 0x78, 0x00])                                                  // not 4-aligned
        feed(osc, OSCEncoder.message("/pulse/rr", [.float(0.8)]))                        // good: 75 BPM
        let counters = osc.counters
        XCTAssertEqual(counters.value(.implausible), 3)
        XCTAssertEqual(counters.value(.unknownAddress), 1)
        XCTAssertEqual(counters.value(.badArguments), 2)
        XCTAssertEqual(counters.value(.malformed), 2)
        guard case .tempo(let bpm) = osc.ring.consumer.pop()?.event else { return XCTFail("no tempo from RR 0.8 s") }
        XCTAssertEqual(bpm, 75, accuracy: 1e-4)
    }

    /// MIT-BIH record 208's intervals sent as `/pulse/rr`, one message each, through the OSC input
    /// into an engine: its published RMSSD and SDNN after every interval are the formula's
    /// (`ReferenceVariability`, written from the definitions) on the intervals as sent,
    /// in the Heart Rate Service's 1/1024 s.
    func testMITBIH208ThroughPulseRRGivesTheFormulasVariability() throws {
        let intervals = try ReferenceVariability.mitBIH208()
        let osc = try input()
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [osc.ring]) { $0.hrvWindowSeconds = 30 }
        var sent: [Double] = [], checked = 0
        for interval in intervals {
            feed(osc, OSCEncoder.message("/pulse/rr", [.float(Float(interval))]))
            sent.append((Double(Float(interval)) * 1024).rounded() / 1024)
            _ = Fixtures.run(engine, sizes: [256], periods: 1)
            let reading = engine.handle.variability.reading(0)
            guard let expected = ReferenceVariability.of(sent, window: 30) else { continue }
            XCTAssertEqual(reading.rmssd ?? .nan, expected.rmssd, accuracy: 1e-4 * expected.rmssd)
            XCTAssertEqual(reading.sdnn ?? .nan, expected.sdnn, accuracy: 1e-4 * expected.sdnn)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 300)
        print("MIT-BIH 208 through /pulse/rr: RMSSD \(engine.handle.variability.reading(0).rmssd!) ms, SDNN \(engine.handle.variability.reading(0).sdnn!) ms over the last 30 s")
    }

    func testSignalsAndModulationSwitchesRouteToTheirIndices() throws {
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: ["click"], signals: ["belt", "eda"], modulations: 2),
                               clock: FixedFrameClock(origin: 1 << 40, now: 0))
        feed(osc, OSCEncoder.bundle(timetag: (1 << 40) + (1 << 31), [OSCEncoder.message("/signal/eda", [.float(0.25)])]))
        feed(osc, OSCEncoder.message("/modulation/2/enable", [.int(0)]))
        feed(osc, OSCEncoder.message("/signal/nothere", [.float(1)]))
        feed(osc, OSCEncoder.message("/modulation/3/enable", [.int(1)]))
        feed(osc, OSCEncoder.message("/signal/belt", [.string("deep")]))
        var got: [ControlMessage] = []
        while let message = osc.ring.consumer.pop() { got.append(message) }
        XCTAssertEqual(got, [ControlMessage(frame: 24_000, .signal(index: 1, 0.25)), ControlMessage(.modulationEnable(index: 1, false))])
        XCTAssertEqual(osc.counters.value(.unknownAddress), 2)
        XCTAssertEqual(osc.counters.value(.badArguments), 1)
    }

    func testThePresetsMoodRangesDecideTheMood() throws {
        let folder = try TemporaryFolder("moods").path
        try """
        voices: [{name: c, kind: click}]
        mood_window: 5
        moods:
          - {mood: focused, beta: {at_least: 0.6}, theta: {below: 0.3}}
          - {mood: drowsy, theta: {at_least: 0.3}}
        """.write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        configuration.mood = try LoadedPreset.load(path: folder).preset.moodModel
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: ["c"]), clock: nil)
        XCTAssertNil(osc.mood)
        feed(osc, OSCEncoder.message("/muse/elements/beta_absolute", [.float(0.7)]))
        feed(osc, OSCEncoder.message("/muse/elements/theta_absolute", [.float(0.2)]))
        XCTAssertEqual(osc.mood, "focused")
        feed(osc, OSCEncoder.message("/muse/elements/theta_absolute", [.float(0.6)]))  // theta average 0.4
        XCTAssertEqual(osc.mood, "drowsy")
        try "voices: [{name: c, kind: click}]\nmoods:\n  - {mood: x}\n".write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try LoadedPreset.load(path: folder)) { XCTAssertTrue("\($0)".contains("moods[0]: a mood needs"), "\($0)") }
    }

    func testMuseAndPoseAndModeMessages() throws {
        let osc = try input()
        feed(osc, OSCEncoder.message("/muse/elements/alpha_absolute", [.float(0.2), .float(0.4), .float(0.6), .float(0.8)]))
        feed(osc, OSCEncoder.message("/muse/elements/theta_absolute", [.float(0.3)]))
        feed(osc, OSCEncoder.message("/pose/hands", [.float(-0.5), .float(0.9), .float(0.45), .float(0.05)]))
        feed(osc, OSCEncoder.message("/mode", [.string("recording")]))
        var got: [ControlMessage.Event] = []
        while let message = osc.ring.consumer.pop() { got.append(message.event) }
        XCTAssertEqual(got, [.bandPower(.alpha, 0.5), .bandPower(.theta, 0.3),
                             .pose(leftX: -0.5, leftY: 0.9, rightX: 0.45, rightY: 0.05), .modeChange(.recording)])
    }

    /// 100 000 random and mutated packets: the input and the engine stay up and count them.
    func testFuzzedPacketsAreCountedAndNeverCrash() throws {
        let preset = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("pulsonify").path)
        var setup = try EngineGraph.setup(preset: preset, sampleRate: 48_000, maxFrames: 256, offline: true)
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: setup.voiceNames),
                               clock: FixedFrameClock(origin: 0, now: 0))
        setup.sources = [osc.ring]
        let engine = RealtimeEngine(setup)
        let seeds: [[UInt8]] = [
            OSCEncoder.message("/pulse/bpm", [.float(72)]),
            OSCEncoder.message("/voice/uke/gain", [.float(0.5)]),
            OSCEncoder.message("/voice/arpeggio/rate", [.int(2), .int(3)]),
            OSCEncoder.message("/pulse/ppg", (0..<16).map { .float(Float($0)) }),
            OSCEncoder.bundle(timetag: 5 << 32, [OSCEncoder.message("/voice/maraca/trigger", [.float(1)]),
                                                  OSCEncoder.message("/mode", [.string("playing")])]),
        ]
        var state: UInt64 = 12345
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        let total = 100_000
        for index in 0..<total {
            var packet: [UInt8]
            if index % 3 == 0 {
                packet = (0..<(next() % 96)).map { _ in UInt8(truncatingIfNeeded: next()) }
                if next() % 2 == 0, !packet.isEmpty { packet[0] = next() % 2 == 0 ? 0x2F : 0x23 }  // "/" or "#"
            } else {
                packet = seeds[next() % seeds.count]
                for _ in 0..<(1 + next() % 4) where !packet.isEmpty {
                    switch next() % 4 {
                    case 0: packet[next() % packet.count] = UInt8(truncatingIfNeeded: next())
                    case 1: packet.removeLast(min(packet.count, 1 + next() % 8))
                    case 2: packet += (0..<(next() % 8)).map { _ in UInt8(truncatingIfNeeded: next()) }
                    default: packet.insert(UInt8(truncatingIfNeeded: next()), at: next() % packet.count)
                    }
                }
            }
            packet.withUnsafeBytes { osc.handle(datagram: $0) }
            if index % 64 == 0 { engine.process(frames: 256, left: left, right: right) }
        }
        let counters = osc.counters
        XCTAssertEqual(counters.value(.received), total)
        let rejected = counters.value(.malformed) + counters.value(.unknownAddress)
            + counters.value(.badArguments) + counters.value(.implausible)
        XCTAssertGreaterThan(rejected, total / 3, "the mutated packets were counted as bad")
        XCTAssertGreaterThan(engine.handle.counters.snapshot()[.messagesApplied], 1000, "and the good ones still played")
        // Still working after all that.
        OSCEncoder.message("/pulse/bpm", [.float(90)]).withUnsafeBytes { osc.handle(datagram: $0) }
        engine.process(frames: 256, left: left, right: right)
        XCTAssertEqual(engine.hearts.clock(0).bpm, 90)
    }
}

/// What the OSC input logs under a flood: short lines, and not one per message.
final class OSCInputLogTests: XCTestCase {
    func testFloodsOfMoodChangesAndHugeAddressesLogLittle() throws {
        final class Lines: @unchecked Sendable {
            let lock = NSLock()
            var all: [String] = []
            func add(_ line: String) { lock.lock(); all.append(line); lock.unlock() }
        }
        let lines = Lines()
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        configuration.mood = MoodModel(window: 1e-9)  // each sample alone decides: the mood flips every message
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: ["click"]),
                               clock: FixedFrameClock(origin: 0, now: 0), log: { lines.add($0) })
        let started = Date()
        for index in 0..<20_000 {
            let value: Float = index % 2 == 0 ? 0.9 : 0.1
            OSCEncoder.message("/muse/elements/alpha_absolute", [.float(value)]).withUnsafeBytes { osc.handle(datagram: $0) }
        }
        // The limiter's contract: one line of a kind a second (the first at once), however fast
        // the flood is handled (a ThreadSanitizer build handles it several times slower).
        let seconds = Int(Date().timeIntervalSince(started).rounded(.up))
        OSCEncoder.message("/" + String(repeating: "a", count: 60_000)).withUnsafeBytes { osc.handle(datagram: $0) }
        let moodLines = lines.all.filter { $0.hasPrefix("mood:") }.count
        XCTAssertGreaterThanOrEqual(moodLines, 1, "the mood changes are said")
        XCTAssertLessThanOrEqual(moodLines, 1 + seconds, "at most one mood line a second, not one per change: \(lines.all.prefix(5))")
        XCTAssertEqual(lines.all.count - moodLines, 1, "the huge address: one line")
        XCTAssertTrue(lines.all.allSatisfy { $0.count < 400 }, "\(lines.all.map(\.count))")
    }
}

/// What arrives and what goes out: every datagram counted (empty ones and those the kernel
/// dropped too), and replies only to the allowed ranges.
final class OSCAccountingTests: XCTestCase {
    func testEmptyDatagramsAndKernelDropsAreCounted() throws {
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        configuration.receiveBufferBytes = 4096  // tiny, so a burst overflows it
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: ["click"]), clock: nil)
        let sender = UDPPeer()
        let packet = OSCEncoder.message("/voice/click/trigger", [.float(1)])
        for _ in 0..<1000 { sender.send(packet, to: osc.boundPort) }  // nobody reads yet: the buffer fills
        osc.start()
        defer { osc.stop() }
        usleep(300_000)
        sender.send([], to: osc.boundPort)
        let deadline = Date() + 5
        while osc.counters.value(.received) + osc.counters.value(.kernelDrops) < 1001,
              Date() < deadline { usleep(10_000) }
        let received = osc.counters.value(.received), drops = osc.counters.value(.kernelDrops)
        XCTAssertGreaterThan(drops, 0, "the kernel dropped some of the burst")
        XCTAssertEqual(received + drops, 1001, "every datagram is either received or counted as dropped")
        XCTAssertEqual(osc.counters.value(.empty), 1)
        XCTAssertEqual(osc.counters.value(.malformed), 0, "an empty datagram is not a malformed one")
        XCTAssertGreaterThan(osc.receiveBufferBytes, 0)
    }

    func testRepliesGoOnlyToAllowedRanges() throws {
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        configuration.replyTo = AddressRange.loopback + [try XCTUnwrap(AddressRange("198.51.100.0/24"))]
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: ["click"]), clock: nil)
        let stranger = try XCTUnwrap(UDPSocket.Address(host: "203.0.113.9", port: 9000))
        OSCEncoder.message("/pulse/status").withUnsafeBytes { osc.handle(datagram: $0, replyTo: stranger) }
        OSCEncoder.message("/meter/subscribe").withUnsafeBytes { osc.handle(datagram: $0, replyTo: stranger) }
        XCTAssertEqual(osc.counters.value(.refusedReplies), 2)
        XCTAssertEqual(osc.subscriberCount, 0)
        // Allowed: a subscriber in the range is kept (nothing is sent until meters are published).
        let neighbour = try XCTUnwrap(UDPSocket.Address(host: "198.51.100.20", port: 9000))
        OSCEncoder.message("/meter/subscribe").withUnsafeBytes { osc.handle(datagram: $0, replyTo: neighbour) }
        XCTAssertEqual(osc.subscriberCount, 1)
        // Loopback is always answered.
        let peer = UDPPeer()
        peer.send(OSCEncoder.message("/pulse/status"), to: osc.boundPort)
        osc.start()
        defer { osc.stop() }
        XCTAssertNotNil(peer.expect("/pulse/status", timeout: 2))
        XCTAssertEqual(osc.counters.value(.refusedReplies), 2)
    }

    func testAddressRanges() throws {
        let lan = try XCTUnwrap(AddressRange("192.168.1.0/24"))
        XCTAssertTrue(lan.contains(try XCTUnwrap(UDPSocket.Address(host: "192.168.1.77", port: 1))))
        XCTAssertFalse(lan.contains(try XCTUnwrap(UDPSocket.Address(host: "192.168.2.77", port: 1))))
        XCTAssertFalse(lan.contains(try XCTUnwrap(UDPSocket.Address(host: "::1", port: 1))))
        XCTAssertTrue(try XCTUnwrap(AddressRange("10.0.0.0/9")).contains(try XCTUnwrap(UDPSocket.Address(host: "10.127.0.1", port: 1))))
        XCTAssertFalse(try XCTUnwrap(AddressRange("10.0.0.0/9")).contains(try XCTUnwrap(UDPSocket.Address(host: "10.128.0.1", port: 1))))
        XCTAssertTrue(AddressRange.loopback.contains { $0.contains(UDPSocket.Address(host: "::1", port: 5)!) })
        XCTAssertNil(AddressRange("192.168.1.0/33"))
        XCTAssertNil(AddressRange("example.org"))
    }
}
