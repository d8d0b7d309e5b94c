@testable import JackEngine
import Control
import XCTest

final class EventQueueTests: XCTestCase {
    func testPopsInFrameThenArrivalOrderAgainstASort() {
        var queue = EventQueue(capacity: 512)
        defer { queue.deallocate() }
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
        defer { queue.deallocate() }
        for frame in 0..<4 { XCTAssertTrue(queue.insert(frame: Int64(frame), .heartbeat(strength: 1))) }
        XCTAssertFalse(queue.insert(frame: 0, .heartbeat(strength: 1)))
        XCTAssertEqual(queue.count, 4)
    }
}
