import Foundation
import XCTest
import Realtime

final class SPSCRingTests: XCTestCase {
    func testCapacityRoundsUpToAPowerOfTwo() {
        XCTAssertEqual(SPSCRing<Int>(minimumCapacity: 1).capacity, 1)
        XCTAssertEqual(SPSCRing<Int>(minimumCapacity: 100).capacity, 128)
        XCTAssertEqual(SPSCRing<Int>(minimumCapacity: 128).capacity, 128)
    }

    func testFIFOOrderAndDropNewestWhenFull() {
        let ring = SPSCRing<Int>(minimumCapacity: 8)
        for value in 0..<8 { XCTAssertTrue(ring.producer.push(value)) }
        XCTAssertFalse(ring.producer.push(8), "a full ring refuses the newest value")
        XCTAssertFalse(ring.producer.push(9))
        XCTAssertEqual(ring.dropped, 2)
        XCTAssertEqual(ring.count, 8)
        var read: [Int] = []
        while let value = ring.consumer.pop() { read.append(value) }
        XCTAssertEqual(read, Array(0..<8), "the oldest values survive, in order")
        XCTAssertNil(ring.consumer.pop())
        // Wrap-around many times.
        var expected = 100
        for round in 0..<1000 {
            for offset in 0..<(round % 8 + 1) { ring.producer.push(100 + round * 8 + offset) }
            while let value = ring.consumer.pop() {
                XCTAssertEqual(value, expected)
                expected += 1
            }
            expected = 100 + (round + 1) * 8
        }
    }

    func testDrainReadsOnlyWhatWasThereWhenItBegan() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        for index in 0..<5 { ring.producer.push(ControlMessage(frame: Int64(index), .heartbeat(strength: 1))) }
        let consumer = ring.consumer
        var remaining = consumer.available()
        var drained = 0
        while remaining > 0, consumer.pop() != nil {
            remaining -= 1
            drained += 1
            ring.producer.push(ControlMessage(.tempo(bpm: 60)))  // arrives during the drain
        }
        XCTAssertEqual(drained, 5)
        XCTAssertEqual(consumer.available(), 5)
    }

    /// Two threads, at least 10 million messages: every one arrives, in order, none twice.
    func testTwoThreadStressKeepsOrderAndCount() {
        let total = Int(ProcessInfo.processInfo.environment["PULSEJACK_RING_STRESS"] ?? "") ?? 10_000_000
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let producer = Thread {
            let side = ring.producer
            var next = 0
            while next < total {
                if side.push(ControlMessage(frame: Int64(next), .voiceTrigger(voice: Int32(truncatingIfNeeded: next), velocity: 1))) {
                    next += 1
                } else {
                    sched_yield()
                }
            }
        }
        producer.start()
        let consumer = ring.consumer
        var expected: Int64 = 0
        var outOfOrder = 0
        while expected < Int64(total) {
            if let message = consumer.pop() {
                if message.frame != expected || message.event != .voiceTrigger(voice: Int32(truncatingIfNeeded: expected), velocity: 1) {
                    outOfOrder += 1
                }
                expected += 1
            } else {
                sched_yield()
            }
        }
        XCTAssertEqual(expected, Int64(total))
        XCTAssertEqual(outOfOrder, 0)
        XCTAssertNil(consumer.pop(), "nothing arrives beyond what was sent")
        // The producer retried on a full ring, so every refusal was counted as a drop of a value
        // that was then sent again; the count delivered is still exact.
        XCTAssertEqual(ring.count, 0)
    }
}
