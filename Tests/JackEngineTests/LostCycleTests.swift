@testable import JackEngine
import Control
import TestSupport
import XCTest

/// A cycle JACK did not run the engine for (an xrun): the beat grid must stay on JACK's frames.
final class LostCycleTests: XCTestCase {
    func testBeatsAfterASkippedCycleStayOnTheirFrames() {
        let engine = Fixtures.clickEngine(maxFrames: 256)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 8)
        engine.addSource(ring)
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
        XCTAssertEqual(engine.counters.snapshot().beats, contract.count, "beats in lost cycles still count")
        XCTAssertEqual(engine.counters.snapshot().framesSkipped, 3 * 256)
    }
}
