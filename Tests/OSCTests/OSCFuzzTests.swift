import OSC
import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
@testable import Engine
@testable import Presets

/// The OSC decoder and router under a million mutated packets from the committed seed corpus
/// (Tests/Corpus/osc, made by scripts/make-osc-corpus.py), with the engine draining what they
/// schedule: nothing crashes, every packet is counted, and the input still works afterwards.
/// Seeded, so a failure reproduces: PULSEJACK_FUZZ_SEED and PULSEJACK_FUZZ_PACKETS change it.
final class OSCFuzzTests: XCTestCase {
    func testAMillionMutatedPacketsAreCountedAndNeverCrash() throws {
        let environment = ProcessInfo.processInfo.environment
        let total = environment["PULSEJACK_FUZZ_PACKETS"].flatMap(Int.init) ?? 1_000_000
        var state = environment["PULSEJACK_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_0F05_C0DE
        let corpusFolder = Subprocess.repository.appendingPathComponent("Tests/Corpus/osc")
        let corpus = try FileManager.default.contentsOfDirectory(atPath: corpusFolder.path).sorted()
            .filter { $0.hasSuffix(".osc") }
            .map { [UInt8](try Data(contentsOf: corpusFolder.appendingPathComponent($0))) }
        XCTAssertGreaterThanOrEqual(corpus.count, 30, "the seed corpus is committed")

        let preset = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("pulsonify").path)
        var setup = try EngineGraph.setup(preset: preset, sampleRate: 48_000, maxFrames: 256, offline: true)
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        let osc = try OSCInput(configuration: configuration,
                               routes: OSCRoutes(voices: setup.voiceNames, regions: ["left-up", "right-up"]),
                               clock: FixedFrameClock(origin: 3_900_000_000 << 32, now: 0))
        setup.sources = [osc.ring]
        let engine = RealtimeEngine(setup)
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        var packet: [UInt8] = []
        packet.reserveCapacity(8192)
        for index in 0..<total {
            packet.removeAll(keepingCapacity: true)
            packet += corpus[next() % corpus.count]
            if next() % 8 == 0 { packet += corpus[next() % corpus.count] }  // two packets spliced
            for _ in 0..<(next() % 6) {
                switch next() % 6 {
                case 0 where !packet.isEmpty: packet[next() % packet.count] = UInt8(truncatingIfNeeded: next())
                case 1 where !packet.isEmpty: packet[next() % packet.count] ^= UInt8(1 << (next() % 8))
                case 2: packet.removeLast(min(packet.count, next() % 9))
                case 3: packet += (0..<(next() % 12)).map { _ in UInt8(truncatingIfNeeded: next()) }
                case 4 where packet.count >= 8:  // a size or count field set to an extreme
                    let at = (next() % (packet.count / 4)) * 4
                    let extreme: [UInt8] = [[0x7F, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0x80, 0, 0, 0]][next() % 4]
                    packet.replaceSubrange(at..<at + 4, with: extreme)
                default: if !packet.isEmpty { packet.insert(UInt8(truncatingIfNeeded: next()), at: next() % packet.count) }
                }
            }
            packet.withUnsafeBytes { osc.handle(datagram: $0) }
            if index % 64 == 0 { engine.process(frames: 256, left: left, right: right) }
        }
        let counters = osc.counters
        XCTAssertEqual(counters.value(.received), total, "every packet counted")
        let rejected = counters.value(.malformed) + counters.value(.unknownAddress)
            + counters.value(.badArguments) + counters.value(.implausible)
        XCTAssertGreaterThan(rejected, total / 4, "mutations are counted as bad")
        XCTAssertGreaterThan(engine.handle.counters.snapshot()[.messagesApplied], total / 100, "and the good ones still play")
        // Still working after all that: a clean tempo plays at once.
        engine.process(frames: 256, left: left, right: right)  // drains what the flood left in the ring
        OSCEncoder.message("/pulse/bpm", [.float(90)]).withUnsafeBytes { osc.handle(datagram: $0) }
        engine.process(frames: 256, left: left, right: right)
        XCTAssertEqual(engine.hearts.clock(0).bpm, 90)
    }
}
