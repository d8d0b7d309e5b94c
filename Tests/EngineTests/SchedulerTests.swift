import Inputs
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Engine

final class SchedulerTests: XCTestCase {
    /// Triggers at random frames, sent ahead through a ring, sound at exactly those frames,
    /// whatever the period sizes (including periods longer than the engine's block).
    func testEventsSoundAtTheirExactFrameAcrossUnevenPeriods() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [ring])
        var generator = SystemRandomNumberGenerator()
        let total = 200_000
        let frames = Set((0..<700).map { _ in Int.random(in: 0..<total - 1, using: &generator) }).sorted()
        var pending = frames[...]
        let sizes = [64, 1000, 7, 256, 333, 4096, 1]
        var produced = 0
        var index = 0
        var output: [Float] = []
        while produced < total {
            let size = min(sizes[index % sizes.count], total - produced)
            index += 1
            // Send everything due within the next two periods, so some events wait in the queue.
            while let next = pending.first, next < produced + 2 * size {
                ring.producer.push(ControlMessage(frame: Int64(next), .voiceTrigger(voice: 0, velocity: 1)))
                pending = pending.dropFirst()
            }
            let run = Fixtures.run(engine, sizes: [size], periods: 1)
            output += run.left
            produced += size
        }
        XCTAssertEqual(WavFile.onsets(output), frames)
        XCTAssertEqual(engine.handle.counters.snapshot()[.lateMessages], 0)
    }

    func testLateAndImmediateMessagesPlayAtThePeriodStartAndLateOnesAreCounted() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = Fixtures.clickEngine(sources: [ring])
        _ = Fixtures.run(engine, sizes: [256], periods: 2)  // frame position 512
        ring.producer.push(ControlMessage(frame: 100, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(ControlMessage(.voiceTrigger(voice: 0, velocity: 0.5)))
        let out = Fixtures.run(engine, sizes: [256], periods: 1).left
        XCTAssertEqual(out[0], 1.5, "both at the period's first frame")
        XCTAssertEqual(engine.handle.counters.snapshot()[.lateMessages], 1)
    }

    func testHeartbeatVoicesAtEveryNthBeatAndSubdivisions() {
        let fired = SPSCRing<FiredVoice>(minimumCapacity: 4096)
        let rates = [BeatRate.everyBeat, BeatRate(everyNthBeat: 3), BeatRate(subdivision: 4), BeatRate(everyNthBeat: 2, subdivision: 3)]
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = Fixtures.clickEngine(voices: ["one", "third", "quarters", "triplets"], rates: rates, fired: fired, sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 120)))  // 24 000 frames a beat
        _ = Fixtures.run(engine, sizes: [512], periods: 282)  // 144 384 frames: beats 0…6
        var byVoice: [Int32: [Int64]] = [:]
        while let report = fired.consumer.pop() { byVoice[report.voice, default: []].append(report.frame) }
        let beat: Int64 = 24_000
        XCTAssertEqual(byVoice[0], (0...6).map { $0 * beat })
        XCTAssertEqual(byVoice[1], [0, 3 * beat, 6 * beat])
        XCTAssertEqual(byVoice[2], (0...24).map { $0 * beat / 4 })
        XCTAssertEqual(byVoice[3], [0, 2, 4, 6].flatMap { k in (0..<3).map { k * beat + $0 * beat / 3 } }.filter { $0 <= 6 * beat })
    }

    func testRejectedTempoIsCountedAndTheClockKeepsTheLastGoodOne() {
        let fired = SPSCRing<FiredVoice>(minimumCapacity: 256)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = Fixtures.clickEngine(fired: fired, sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 60)))
        for bad in [0, -5, 301, .nan, .infinity] {
            ring.producer.push(ControlMessage(frame: 10_000, .tempo(bpm: bad)))
        }
        _ = Fixtures.run(engine, sizes: [1000], periods: 150)
        var frames: [Int64] = []
        while let report = fired.consumer.pop() { frames.append(report.frame) }
        XCTAssertEqual(frames, [0, 48_000, 96_000, 144_000])
        XCTAssertEqual(engine.handle.counters.snapshot()[.rejectedTempos], 5)
    }

    func testVoiceParametersChangeWhatPlays() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = Fixtures.clickEngine(sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .voiceParameter(voice: 0, .gain(0.5))))
        ring.producer.push(ControlMessage(frame: 0, .voiceParameter(voice: 0, .pan(-1))))
        // Gain and pan slew to their new values within 10 ms (480 frames) so that nothing clicks.
        ring.producer.push(ControlMessage(frame: 1000, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(ControlMessage(frame: 1100, .voiceParameter(voice: 0, .enable(false))))
        ring.producer.push(ControlMessage(frame: 1200, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(ControlMessage(frame: 1300, .voiceParameter(voice: 7, .gain(1))))
        ring.producer.push(ControlMessage(frame: 1300, .voiceParameter(voice: 0, .gain(.nan))))
        let out = Fixtures.run(engine, sizes: [2048], periods: 1)
        XCTAssertEqual(WavFile.onsets(out.left, threshold: 0.1), [1000])
        XCTAssertEqual(out.left[1000], 0.5)
        XCTAssertEqual(out.right[1000], 0, "panned hard left")
        XCTAssertEqual(engine.handle.counters.snapshot()[.invalidMessages], 2)
    }
}
