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
        XCTAssertEqual(engine.handle.counters.snapshot().beats, contract.count, "beats in lost cycles still count")
        XCTAssertEqual(engine.handle.counters.snapshot().framesSkipped, 3 * 256)
    }
}

/// jackd2 reads `jack_last_frame_time` from the server's current timer: a callback that starts
/// after the next cycle began reads the next cycle's frame. Such late readings must not move
/// the beat grid; real lost cycles must.
final class CycleGapDetectorTests: XCTestCase {
    private func decisions(_ readings: [UInt32], period: UInt32 = 256) -> [CycleGapDetector.Decision] {
        var detector = CycleGapDetector(limit: 48_000)
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
        var detector = CycleGapDetector(limit: 48_000)
        let late: Set<Int> = [40, 90, 91], lost: Set<Int> = [150]
        var heard: [Int] = []
        for period in 0..<300 {
            guard !lost.contains(period) else { continue }
            let reading = UInt32(period * 256 + (late.contains(period) ? 256 : 0))
            switch detector.cycle(reading: reading, frames: 256) {
            case .none: break
            case .skip(let frames): engine.skip(frames: frames)
            case .rewind(let frames): engine.rewind(frames: frames)
            case .skipAtPeriodChange(let frames): engine.skip(frames: frames, soundingLate: true)
            }
            let run = Fixtures.run(engine, sizes: [256], periods: 1)
            heard += WavFile.onsets(run.left).map { period * 256 + $0 }
        }
        let contract = (0..<40).map { k in (2 * k * 60 * 48_000 + 73) / (2 * 73) }.filter { $0 < 300 * 256 }
        let disturbed: Set<Int> = [90, 91, 92, 150, 151]
        let away = contract.filter { !disturbed.contains($0 / 256) }
        XCTAssertTrue(Set(away).isSubset(of: Set(heard)), "missing \(Set(away).subtracting(heard).sorted())")
        XCTAssertTrue(heard.filter { !disturbed.contains($0 / 256) }.allSatisfy { Set(contract).contains($0) }, "off the grid: \(heard)")
        XCTAssertEqual(engine.handle.counters.snapshot().framesSkipped, 256, "only the lost cycle counts as skipped")
    }

    private func decisions(_ cycles: [(reading: UInt32, frames: UInt32)]) -> [CycleGapDetector.Decision] {
        var detector = CycleGapDetector(limit: 48_000)
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

    /// PipeWire runs no client in the first cycle of a new quantum: the counter jumps by old +
    /// new, and the unrun cycle is skipped at once (there is nothing to confirm it later).
    func testPipeWiresUnrunCycleAtAPeriodChangeIsSkippedAtOnce() {
        XCTAssertEqual(decisions([(0, 256), (256, 256), (512, 256), (1792, 1024), (2816, 1024)]),
                       [.none, .none, .none, .skipAtPeriodChange(1024), .none])
        XCTAssertEqual(decisions([(0, 2048), (2048, 2048), (4160, 64), (4224, 64)]), [.none, .none, .skipAtPeriodChange(64), .none])
        // An ordinary gap at an unchanged period still waits for its confirmation.
        XCTAssertEqual(decisions([(0, 64), (192, 64), (256, 64)]), [.none, .none, .skip(128)])
    }

    /// A 300-BPM click on four pulses a beat (every 2,400 frames) through ten period changes,
    /// driven as each server drives the callback. jackd2: every pulse on its contract frame in
    /// the sample stream. PipeWire: every pulse on its contract frame in JACK's frame time,
    /// except those due in an unrun cycle, which sound at the next cycle's first frame, counted.
    func testTenPeriodChangesKeepEveryPulseOnItsContractFrame() {
        let sizes = [256, 64, 2048, 64, 2048, 128, 1024, 64, 2048, 512, 256]
        for pipeWire in [false, true] {
            let ring = SPSCRing<ControlMessage>(minimumCapacity: 8)
            let engine = Fixtures.clickEngine(maxFrames: 64, rates: [BeatRate(subdivision: 4)], sources: [ring])
            ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 300)))
            var detector = CycleGapDetector(limit: 48_000)
            var heard: [Int] = [], unrun: [Range<Int>] = []
            var truth = 0, reading: UInt32 = 0, last = sizes[0]
            for size in sizes {
                for cycle in 0..<(48_000 / size / 2) {
                    if cycle == 0 && size != last {
                        if pipeWire {
                            unrun.append(truth..<truth + size)
                            truth += size
                            reading = UInt32(truth)
                        } else {
                            // The counter moved by the new size where the old period passed.
                            reading = reading &- UInt32(last) &+ UInt32(size)
                        }
                    }
                    switch detector.cycle(reading: reading, frames: UInt32(size)) {
                    case .none: break
                    case .skip(let frames): engine.skip(frames: frames)
                    case .rewind(let frames): engine.rewind(frames: frames)
                    case .skipAtPeriodChange(let frames): engine.skip(frames: frames, soundingLate: true)
                    }
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
            XCTAssertEqual(engine.handle.counters.snapshot().latePulses, late.count)
            XCTAssertEqual(engine.handle.counters.snapshot().framesSkipped, unrun.map(\.count).reduce(0, +))
            if pipeWire { XCTAssertFalse(late.isEmpty, "some pulse fell in an unrun cycle: the test tests the late path") }
        }
    }
}
