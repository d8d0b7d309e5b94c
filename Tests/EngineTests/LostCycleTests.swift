import Inputs
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Engine

/// A cycle JACK did not run the engine for (an xrun): the beat grid must stay on JACK's frames.
final class LostCycleTests: XCTestCase {
    func testBeatsAfterASkippedCycleStayOnTheirFrames() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 8)
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 73)))
        // 200 periods of 256 frames with three lost: absolute frames of what was heard.
        let lost: Set<Int> = [40, 41, 150]
        var heard: [Int] = []
        for period in 0..<200 {
            if lost.contains(period) {
                engine.skip(frames: 256)
                continue
            }
            let run = Fixtures.run(engine, sizes: [256], periods: 1)
            heard += WavFile.onsets(run.left).map { period * 256 + $0 }
        }
        let contract = (0..<20).map { k in (2 * k * 60 * 48_000 + 73) / (2 * 73) }.filter { $0 < 200 * 256 }
        let inLostCycles = contract.filter { lost.contains($0 / 256) }
        XCTAssertEqual(heard, contract.filter { !inLostCycles.contains($0) })
        XCTAssertEqual(engine.handle.counters.snapshot()[.beats], contract.count, "beats in lost cycles still count")
        XCTAssertEqual(engine.handle.counters.snapshot()[.framesSkipped], 3 * 256)
    }
}

/// jackd2 reads `jack_last_frame_time` from the server's current timer: a callback that starts
/// after the next cycle began reads the next cycle's frame. Such late readings must not move
/// the beat grid; real lost cycles must.
final class CycleGapDetectorTests: XCTestCase {
    private func decisions(_ readings: [UInt32], period: UInt32 = 256) -> [CycleGapDetector.Decision] {
        var detector = CycleGapDetector(limit: 48_000, periodChange: .jumpsByTheDifference)
        return readings.map { detector.cycle(reading: $0, frames: period) }
    }

    func testSteadyCyclesSkipNothing() {
        XCTAssertEqual(decisions([0, 256, 512, 768, 1024]), Array(repeating: .none, count: 5))
    }

    func testALostCycleIsSkippedOnceTheNextReadingConfirmsIt() {
        XCTAssertEqual(decisions([0, 256, 768, 1024, 1280]), [.none, .none, .none, .skip(256), .none])
        XCTAssertEqual(decisions([0, 256, 1280, 1536, 1792]), [.none, .none, .none, .skip(768), .none])
    }

    func testALateReadingIsNotALostCycle() {
        // The cycle starting at 512 read 768: the server had begun the next cycle.
        XCTAssertEqual(decisions([0, 256, 768, 768, 1024, 1280]), Array(repeating: .none, count: 6))
        // The very first reading late: nothing to undo, nothing skipped.
        XCTAssertEqual(decisions([256, 256, 512, 768]), Array(repeating: .none, count: 4))
    }

    func testLatenessOverTwoCyclesIsWoundBack() {
        XCTAssertEqual(decisions([0, 256, 768, 1024, 1024, 1280, 1536]), [.none, .none, .none, .skip(256), .rewind(256), .none, .none])
    }

    func testANewClockIsNoGapAndTheFrameCounterMayWrap() {
        XCTAssertEqual(decisions([0, 256, 5_000_000, 5_000_256, 5_000_512]), Array(repeating: .none, count: 5))
        let start = UInt32.max - 300
        XCTAssertEqual(decisions([start, start &+ 256, start &+ 512, start &+ 768]), Array(repeating: .none, count: 4))
    }

    /// The engine driven as the JACK callback drives it, with late readings and one lost cycle:
    /// every beat away from the disturbances sounds exactly on JACK's frame for it.
    func testLateReadingsKeepTheBeatGrid() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 8)
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 73)))
        var detector = CycleGapDetector(limit: 48_000, periodChange: .jumpsByTheDifference)
        let late: Set<Int> = [40, 90, 91], lost: Set<Int> = [150]
        var heard: [Int] = []
        for period in 0..<300 {
            guard !lost.contains(period) else { continue }
            let reading = UInt32(period * 256 + (late.contains(period) ? 256 : 0))
            apply(detector.cycle(reading: reading, frames: 256), to: engine)
            let run = Fixtures.run(engine, sizes: [256], periods: 1)
            heard += WavFile.onsets(run.left).map { period * 256 + $0 }
        }
        let contract = (0..<40).map { k in (2 * k * 60 * 48_000 + 73) / (2 * 73) }.filter { $0 < 300 * 256 }
        let disturbed: Set<Int> = [90, 91, 92, 150, 151]
        let away = contract.filter { !disturbed.contains($0 / 256) }
        XCTAssertTrue(Set(away).isSubset(of: Set(heard)), "missing \(Set(away).subtracting(heard).sorted())")
        XCTAssertTrue(heard.filter { !disturbed.contains($0 / 256) }.allSatisfy { Set(contract).contains($0) }, "off the grid: \(heard)")
        XCTAssertEqual(engine.handle.counters.snapshot()[.framesSkipped], 256, "only the lost cycle counts as skipped")
    }

    private func decisions(_ cycles: [(reading: UInt32, frames: UInt32)],
                           on server: PeriodChangeCounter = .jumpsByTheDifference) -> [CycleGapDetector.Decision] {
        var detector = CycleGapDetector(limit: 48_000, periodChange: server)
        return cycles.map { detector.cycle(reading: $0.reading, frames: $0.frames) }
    }

    /// jackd2 runs every cycle, but at the first cycle of a new size its counter has moved by
    /// the new size while the old period passed: new − old, with no frame lost.
    func testJackd2sCounterJumpAtAPeriodChangeSkipsNothing() {
        // 256 → 1024 at the cycle that truly starts at 768: the counter reads 512 + 1024.
        XCTAssertEqual(decisions([(0, 256), (256, 256), (512, 256), (1536, 1024), (2560, 1024), (3584, 1024)]),
                       Array(repeating: .none, count: 6))
        // 1024 → 64: the counter reads 1024 + 64 where 2048 passed.
        XCTAssertEqual(decisions([(0, 1024), (1024, 1024), (1088, 64), (1152, 64), (1216, 64)]), Array(repeating: .none, count: 5))
    }

    /// jackd2's jump read late, at the first cycle of the new size: the reading is a new period
    /// past the jump. Only a second reading shows whether that period was lost.
    func testJackd2sCounterJumpReadLateSkipsNothingAndALostPeriodAfterItIsSkipped() {
        // 64 → 2048 at the cycle that truly starts at 128: the counter reads 64 + 2048, late 4160.
        XCTAssertEqual(decisions([(0, 64), (64, 64), (4160, 2048), (4160, 2048), (6208, 2048)]), Array(repeating: .none, count: 5))
        // 256 → 1024, read two periods late.
        XCTAssertEqual(decisions([(0, 256), (256, 256), (512, 256), (3584, 1024), (2560, 1024), (3584, 1024)]),
                       Array(repeating: .none, count: 6))
        // The period after the jump truly lost: skipped once the next reading confirms it.
        XCTAssertEqual(decisions([(0, 64), (64, 64), (4160, 2048), (6208, 2048), (8256, 2048)]),
                       [.none, .none, .none, .skip(2048), .none])
    }

    /// jackd2 with the last cycle before a change lost: the reading is the jump plus the lost
    /// old period, which at 64 → 2048 is one whole new period, PipeWire's pattern. Read as
    /// PipeWire's unrun cycle (CI's TSan run of b93b4f6), 2048 frames were skipped for 64 lost.
    func testJackd2sCounterJumpAfterALostCycleSkipsOnlyTheLostFrames() {
        // 64 → 2048: the cycle at 128 lost, the next (truly at 192) reads 128 + 2048.
        XCTAssertEqual(decisions([(0, 64), (64, 64), (2176, 2048), (4224, 2048), (6272, 2048)]),
                       [.none, .none, .none, .skip(64), .none])
        // The loss already seen by the last cycle before the change: the change confirms it.
        XCTAssertEqual(decisions([(0, 256), (256, 256), (768, 256), (1792, 1024), (2816, 1024)]),
                       [.none, .none, .none, .skip(256), .none])
        // The last 64-frame cycle read late, in the first 2048-frame one: nothing lost.
        XCTAssertEqual(decisions([(0, 64), (64, 64), (2176, 64), (2176, 2048), (4224, 2048)]),
                       Array(repeating: .none, count: 5))
    }

    /// PipeWire runs no client in the first cycle of a new quantum: the counter jumps by old +
    /// new, and the unrun cycle is skipped at once (its reading is the cycle's own).
    func testPipeWiresUnrunCycleAtAPeriodChangeIsSkippedAtOnce() {
        XCTAssertEqual(decisions([(0, 256), (256, 256), (512, 256), (1792, 1024), (2816, 1024)], on: .skipsUnrunCycles),
                       [.none, .none, .none, .skipNow(1024), .none])
        XCTAssertEqual(decisions([(0, 2048), (2048, 2048), (4160, 64), (4224, 64)], on: .skipsUnrunCycles),
                       [.none, .none, .skipNow(64), .none])
        // PipeWire's reading is the cycle's own: a gap at an unchanged period is skipped at once too
        // (held for confirmation, that period sounded a period behind: once in CI).
        XCTAssertEqual(decisions([(0, 64), (192, 64), (256, 64)], on: .skipsUnrunCycles), [.none, .skipNow(128), .none])
    }

    /// PipeWire's copy is taken as our cycle starts: a callback woken after the driver moved on
    /// reads the next cycle's position. Skipped at once, and wound back when the next reading
    /// shows no cycle was lost (not wound back, the timeline stayed a period ahead of JACK's).
    func testAPipeWireReadingTakenLateIsWoundBack() {
        // The cycle at 128 read as 192: 64 frames skipped, then 192 comes again.
        XCTAssertEqual(decisions([(0, 64), (64, 64), (192, 64), (192, 64), (256, 64)], on: .skipsUnrunCycles),
                       [.none, .none, .skipNow(64), .rewind(64), .none])
        // A true unrun cycle is not undone by readings that follow on.
        XCTAssertEqual(decisions([(0, 64), (128, 64), (192, 64), (256, 64)], on: .skipsUnrunCycles),
                       [.none, .skipNow(64), .none, .none])
        // Behind with nothing skipped lately (a late first reading): taken as the truth, nothing wound back.
        XCTAssertEqual(decisions([(64, 64), (64, 64), (128, 64)], on: .skipsUnrunCycles), [.none, .none, .none])
    }

    /// A 300-BPM click on four pulses a beat (every 2,400 frames) through ten period changes,
    /// driven as each server drives the callback. jackd2: every pulse on its contract frame in
    /// the sample stream. PipeWire, which also runs a cycle now and then without us mid-quantum:
    /// every pulse on its contract frame in JACK's frame time, except those due in an unrun
    /// cycle, which sound at the next cycle's first frame, counted.
    func testTenPeriodChangesKeepEveryPulseOnItsContractFrame() {
        let sizes = [256, 64, 2048, 64, 2048, 128, 1024, 64, 2048, 512, 256]
        for pipeWire in [false, true] {
            let ring = SPSCRing<ControlMessage>(minimumCapacity: 8)
            let engine = Fixtures.clickEngine(maxFrames: 64, rates: [BeatRate(subdivision: 4)], sources: [ring])
            ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 300)))
            var detector = CycleGapDetector(limit: 48_000, periodChange: pipeWire ? .skipsUnrunCycles : .jumpsByTheDifference)
            var heard: [Int] = [], unrun: [Range<Int>] = []
            var truth = 0, reading: UInt32 = 0, last = sizes[0]
            for size in sizes {
                for cycle in 0..<(48_000 / size / 2) {
                    // PipeWire also skips the client mid-quantum now and then (under load).
                    if (cycle == 0 && size != last) || (pipeWire && cycle == 3) {
                        if pipeWire {
                            unrun.append(truth..<truth + size)
                            truth += size
                            reading = UInt32(truth)
                        } else {
                            // The counter moved by the new size where the old period passed.
                            reading = reading &- UInt32(last) &+ UInt32(size)
                        }
                    }
                    apply(detector.cycle(reading: reading, frames: UInt32(size)), to: engine)
                    heard += WavFile.onsets(Fixtures.run(engine, sizes: [size], periods: 1).left).map { truth + $0 }
                    truth += size
                    reading = reading &+ UInt32(size)
                    last = size
                }
            }
            let contract = Array(stride(from: 0, to: truth, by: 2400))
            let late = contract.filter { frame in unrun.contains { $0.contains(frame) } }
            let expected = contract.map { frame in unrun.first { $0.contains(frame) }?.upperBound ?? frame }
            XCTAssertEqual(heard, expected, pipeWire ? "PipeWire" : "jackd2")
            XCTAssertEqual(engine.handle.counters.snapshot()[.latePulses], late.count)
            XCTAssertEqual(engine.handle.counters.snapshot()[.framesSkipped], unrun.map(\.count).reduce(0, +))
            if pipeWire { XCTAssertFalse(late.isEmpty, "some pulse fell in an unrun cycle: the test tests the late path") }
        }
    }

    /// jackd2, the last cycle before each change lost (so the reading at 64 → 2048 looks like
    /// PipeWire's unrun cycle): only the lost frames are skipped, and every pulse away from the
    /// disturbed periods sounds on its contract frame in the sample stream.
    func testALostCycleBeforeEachPeriodChangeKeepsTheGridOnJackd2() {
        let sizes = [64, 2048, 64, 2048, 64, 1024, 64]
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 8)
        let engine = Fixtures.clickEngine(maxFrames: 64, rates: [BeatRate(subdivision: 4)], sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 300)))
        var detector = CycleGapDetector(limit: 48_000, periodChange: .jumpsByTheDifference)
        var heard: [Int] = [], disturbed: [Range<Int>] = [], lostFrames = 0
        var truth = 0, counter: UInt32 = 0
        for (index, size) in sizes.enumerated() {
            let cycles = 48_000 / size / 2
            for cycle in 0..<cycles {
                // The counter moves by each cycle's own size: new − old ahead at a change.
                if truth > 0 { counter &+= UInt32(size) }
                if cycle == cycles - 1 && index < sizes.count - 1 {
                    // Lost: the next period renders these frames late, the one after skips them.
                    disturbed.append(truth..<truth + size + 2 * sizes[index + 1])
                    lostFrames += size
                    truth += size
                    continue
                }
                apply(detector.cycle(reading: counter, frames: UInt32(size)), to: engine)
                heard += WavFile.onsets(Fixtures.run(engine, sizes: [size], periods: 1).left).map { truth + $0 }
                truth += size
            }
        }
        let contract = Array(stride(from: 0, to: truth, by: 2400))
        let calm = { (frame: Int) in !disturbed.contains { $0.contains(frame) } }
        XCTAssertEqual(heard.filter(calm), contract.filter(calm), "on the grid away from the lost cycles")
        XCTAssertEqual(engine.handle.counters.snapshot()[.framesSkipped], lostFrames)
        XCTAssertGreaterThan(contract.filter(calm).count, 50)
    }

    /// As `ProcessHost.run` acts on a decision.
    private func apply(_ decision: CycleGapDetector.Decision, to engine: RealtimeEngine) {
        switch decision {
        case .none: break
        case .skip(let frames): engine.skip(frames: frames)
        case .rewind(let frames): engine.rewind(frames: frames)
        case .skipNow(let frames): engine.skip(frames: frames, soundingLate: true)
        }
    }
}
