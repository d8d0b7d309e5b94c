import Atomics
import XCTest
@testable import Engine

/// The MIDI out queue against a reference that sorts everything pending at once.
final class MIDIOutQueueTests: XCTestCase {
    func testNotesLeaveInFrameOrderNoteOffsFirstAsAFullSortWouldGiveThem() {
        let counters = EngineCounters()
        let queue = MIDIOutQueue(capacity: 4096, counters: counters)
        var generator = SystemRandomNumberGenerator()
        // (frame, is a note-off, order of insertion, key): the reference sorts by the first three.
        var reference: [(frame: Int64, off: Bool, order: Int, key: UInt8)] = []
        var order = 0
        var frame: Int64 = 0
        var written: [(frame: Int64, off: Bool, key: UInt8)] = []
        for period in 0..<400 {
            let start = Int64(period) * 64
            // Fire a few voices in time order within the period, with lengths per key (1…300).
            while frame < start + 64 {
                let key = UInt8.random(in: 0...127, using: &generator)
                let length = Int64(key) * 2 + 1
                queue.noteOn(frame: frame, channel: 0, key: key, velocity: 1, length: length)
                reference.append((frame, false, order, key)); order += 1
                reference.append((frame + length, true, order, key)); order += 1
                frame += Int64.random(in: 0...40, using: &generator)
            }
            var due: [(frame: Int64, off: Bool, key: UInt8)] = []
            queue.drain(before: start + 64) { due.append(($0.frame, $0.status & 0xF0 == 0x80, $0.key)) }
            written += due
        }
        queue.drain(before: .max) { written.append(($0.frame, $0.status & 0xF0 == 0x80, $0.key)) }
        let expected = reference.sorted { ($0.frame, $0.off ? 0 : 1, $0.order) < ($1.frame, $1.off ? 0 : 1, $1.order) }
        XCTAssertEqual(counters.value(.midiNotesDropped), 0)
        XCTAssertEqual(written.count, expected.count)
        XCTAssertTrue(zip(written, expected).allSatisfy { $0.frame == $1.frame && $0.off == $1.off && $0.key == $1.key },
                      "order differs from the full sort")
    }

    func testAFullQueueDropsAndCountsTheNewestNotes() {
        let counters = EngineCounters()
        let queue = MIDIOutQueue(capacity: 16, counters: counters)
        for index in 0..<20 { queue.noteOn(frame: Int64(index), channel: 0, key: 60, velocity: 1, length: 1000) }
        XCTAssertEqual(queue.count, 16)
        XCTAssertEqual(counters.value(.midiNotesDropped), 12)
    }
}
