import Inputs
import EngineFixtures
import XCTest
import Realtime
@testable import Engine

final class EventQueueTests: XCTestCase {
    func testPopsInFrameThenArrivalOrderAgainstASort() {
        var queue = EventQueue(capacity: 512)
        var generator = SystemRandomNumberGenerator()
        var reference: [(frame: Int64, arrival: Int)] = []
        for arrival in 0..<500 {
            let frame = Int64.random(in: 0..<50, using: &generator)
            XCTAssertTrue(queue.insert(frame: frame, .voiceTrigger(voice: Int32(arrival), velocity: 1)))
            reference.append((frame, arrival))
        }
        reference.sort { ($0.frame, $0.arrival) < ($1.frame, $1.arrival) }
        var popped: [(Int64, Int)] = []
        while let event = queue.popEarliest() {
            guard case .voiceTrigger(let voice, _) = event.event else { return XCTFail() }
            popped.append((event.frame, Int(voice)))
        }
        XCTAssertEqual(popped.map(\.0), reference.map(\.frame))
        XCTAssertEqual(popped.map(\.1), reference.map(\.arrival))
    }

    func testRefusesWhenFull() {
        var queue = EventQueue(capacity: 4)
        for frame in 0..<4 { XCTAssertTrue(queue.insert(frame: Int64(frame), .heartbeat(strength: 1))) }
        XCTAssertFalse(queue.insert(frame: 0, .heartbeat(strength: 1)))
        XCTAssertEqual(queue.count, 4)
    }

    func testFutureEventsLeaveTheReserveToEventsDueNow() {
        var queue = EventQueue(capacity: 8, reserve: 3)
        for frame in 0..<5 { XCTAssertTrue(queue.insert(frame: 1000 + Int64(frame), .heartbeat(strength: 1), dueBefore: 256)) }
        XCTAssertFalse(queue.insert(frame: 2000, .heartbeat(strength: 1), dueBefore: 256), "future events stop at capacity − reserve")
        for _ in 0..<3 { XCTAssertTrue(queue.insert(frame: 10, .heartbeat(strength: 1), dueBefore: 256)) }
        XCTAssertFalse(queue.insert(frame: 10, .heartbeat(strength: 1), dueBefore: 256), "and the whole queue is the limit")
    }

    /// The starved-queue report: 4,100 events an hour ahead, then a tempo and triggers due now.
    func testEventsFarAheadCannotStarveImmediateMessages() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 8192)
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [ring])
        let hourAhead = Int64(3600 * 48_000)
        for _ in 0..<4100 { ring.producer.push(ControlMessage(frame: hourAhead, .voiceParameter(voice: 0, .gain(0.35)))) }
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        let future = RealtimeEngine.eventQueueCapacity - RealtimeEngine.eventQueueReserve
        XCTAssertEqual(engine.handle.counters.snapshot()[.queueOverflows], 4100 - future)
        ring.producer.push(ControlMessage(.tempo(bpm: 120)))
        for _ in 0..<5 { ring.producer.push(ControlMessage(.voiceTrigger(voice: 0, velocity: 1))) }
        let run = Fixtures.run(engine, sizes: [256], periods: 1)
        XCTAssertEqual(engine.hearts.clock(0).bpm, 120, "the tempo changed")
        XCTAssertEqual(engine.handle.counters.snapshot()[.voicesFired], 6, "five triggers and the first beat")
        XCTAssertEqual(run.left[0], 6, "all six clicks at the period's start")
        XCTAssertEqual(engine.handle.counters.snapshot()[.queueOverflows], 4100 - future, "nothing due now was refused")
    }
}
