import EngineFixtures
import Realtime
import XCTest
@testable import Engine

/// `--midi-clock` without a server: the engine's clocks for `clock_out`, period by period in
/// uneven periods, against the tempo schedule worked out here — the grid heart's phase is a
/// line from its first tempo, bent at each change — every clock k (24 a beat) within one frame
/// of where that phase reaches k/24 beats, none lost or doubled across the changes; and Start,
/// Continue with the position, and Stop at the transport's changes.
final class MIDIClockTests: XCTestCase {
    func testTwentyFourClocksABeatEachWithinAFrameAcrossTempoChanges() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let changes: [(frame: Int64, bpm: Double)] = [(1_000, 120), (31_717, 97.3), (70_001, 181), (100_500, 60)]
        for change in changes { ring.producer.push(ControlMessage(frame: change.frame, .tempo(bpm: change.bpm))) }
        let engine = Fixtures.clickEngine(maxFrames: 512, sources: [ring]) { $0.sendsMIDIClock = true }
        var clocks: [Int64] = []
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 512), right = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { left.deallocate(); right.deallocate() }
        let sizes = [256, 512, 100, 333]
        var period = 0
        while engine.framePosition < 160_000 {
            let frames = sizes[period % sizes.count]
            period += 1
            let start = engine.framePosition
            engine.process(frames: frames, left: left, right: right, keepsMIDI: true)
            engine.flushMIDI(.clock, frames: frames) { offset, event in
                XCTAssertEqual(event.status, 0xF8)
                XCTAssertEqual(event.size, 1)
                clocks.append(start + Int64(offset))
                return true
            }
        }
        // The reference: beats since the first tempo at each frame, and the frame each clock's phase is reached.
        func beats(at frame: Double) -> Double {
            var total = 0.0
            for (index, change) in changes.enumerated() where Double(change.frame) < frame {
                let end = min(frame, index + 1 < changes.count ? Double(changes[index + 1].frame) : frame)
                total += (end - Double(change.frame)) * change.bpm / 60 / 48_000
            }
            return total
        }
        func frame(ofClock index: Int) -> Double {
            var low = 1_000.0, high = 200_000.0
            for _ in 0..<80 { let middle = (low + high) / 2; if beats(at: middle) < Double(index) / 24 { low = middle } else { high = middle } }
            return (low + high) / 2
        }
        XCTAssertEqual(clocks.count, Int(beats(at: 160_000) * 24) + 1, "every clock once, from the first tempo's")
        for (index, clock) in clocks.enumerated() {
            XCTAssertEqual(Double(clock), frame(ofClock: index), accuracy: 1.0, "clock \(index)")
        }
    }

    func testTheTransportsStartContinueAndStopWithItsPosition() {
        let engine = Fixtures.clickEngine(maxFrames: 256) { $0.sendsMIDIClock = true }
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        var sent: [[UInt8]] = []
        func period(rolling: Bool, wasRolling: Bool, sixteenths: Int) {
            engine.midiClockTransport(rolling: rolling, wasRolling: wasRolling, sixteenths: sixteenths)
            engine.process(frames: 256, left: left, right: right, keepsMIDI: true)
            engine.flushMIDI(.clock, frames: 256) { offset, event in
                XCTAssertEqual(offset, 0)
                sent.append(Array([event.status, event.data1, event.data2].prefix(event.size)))
                return true
            }
        }
        period(rolling: true, wasRolling: false, sixteenths: 0)
        period(rolling: false, wasRolling: true, sixteenths: 37)
        period(rolling: false, wasRolling: false, sixteenths: 200)
        period(rolling: true, wasRolling: false, sixteenths: 200)
        XCTAssertEqual(sent, [[0xFA], [0xFC], [0xF2, 200 & 0x7F, 200 >> 7], [0xF2, 200 & 0x7F, 200 >> 7], [0xFB]])
    }
}
