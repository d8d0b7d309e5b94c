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
}
