import Foundation
import Presets
import Realtime
import Renders
import TestSupport
import XCTest

/// `render --midi-clock FILE`: the clocks a live run sends, offline, in a MIDI file whose tick is
/// a frame — read back by a Standard MIDI File reader written here: Start on the first frame,
/// exactly 24 clocks a beat of the heart, each within one frame of its even place while the
/// tempo holds, one beat bending at each tempo change, Stop on the last frame.
final class MIDIClockRenderTests: XCTestCase {
    func testTwentyFourClocksABeatAcrossTempoChangesInAFrameTickedMIDIFile() throws {
        let folder = try TemporaryFolder("midi-clock-render")
        defer { folder.remove() }
        try "voices:\n  - {name: beat, kind: click}\n".write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        try "time,bpm\n0,120\n3.1,96\n6.7,150\n".write(toFile: folder.file("heart.csv"), atomically: true, encoding: .utf8)
        var job = RenderJob(preset: folder.file("preset.yaml"), sessions: [folder.file("heart.csv")], out: folder.file("out.wav"))
        (job.midiClock, job.eventsOut, job.duration) = (folder.file("clock.mid"), folder.file("events.jsonl"), 10)
        try job.check()
        _ = try job.run()
        let file = try Self.read(Data(contentsOf: URL(fileURLWithPath: folder.file("clock.mid"))))
        XCTAssertEqual(file.ticksPerSecond, 48_000, "a tick a frame")
        let beats = try String(contentsOfFile: folder.file("events.jsonl"), encoding: .utf8).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["frame"] as? Int
        }.map(Int64.init)
        XCTAssertEqual(file.events.first.map { [$0.frame, Int64($0.bytes[0])] }, [0, 0xFA], "Start on the first frame")
        XCTAssertEqual(file.events.last.map { [$0.frame, Int64($0.bytes[0])] }, [480_000, 0xFC], "Stop on the last")
        let clocks = file.events.filter { $0.bytes == [0xF8] }.map(\.frame)
        XCTAssertEqual(file.events.count, clocks.count + 2, "nothing but clocks between")
        let grid = MIDIClockGrid.check(clocks: clocks, beats: beats, steady: [24_000, 30_000, 19_200])
        XCTAssertEqual(grid.problems, [])
        XCTAssertEqual(grid.bent, 2, "a beat bends at each change: \(zip(beats, beats.dropFirst()).map { $1 - $0 })")

        // The judge itself: a clock a period early is on its place only for a period wound back.
        var early = clocks
        let moved = try XCTUnwrap(early.firstIndex { $0 > beats[1] + 10_000 })
        early[moved] -= 256
        XCTAssertEqual(MIDIClockGrid.check(clocks: early, beats: beats, steady: [24_000, 30_000, 19_200], woundBack: 1).problems, [])
        XCTAssertEqual(MIDIClockGrid.check(clocks: early, beats: beats, steady: [24_000, 30_000, 19_200]).problems.count, 2,
                       "not heard on its place, and heard on none")
        early[moved + 2] -= 256
        XCTAssertEqual(MIDIClockGrid.check(clocks: early, beats: beats, steady: [24_000, 30_000, 19_200], woundBack: 1).problems.count, 2,
                       "one period wound back excuses one clock")

        // And one less than a period late only for a period skipped (sounded at the next cycle's start).
        let steady: [Double] = [24_000, 30_000, 19_200]
        var late = clocks
        late[moved] += 51
        XCTAssertEqual(MIDIClockGrid.check(clocks: late, beats: beats, steady: steady, skipped: 1).problems, [])
        XCTAssertEqual(MIDIClockGrid.check(clocks: late, beats: beats, steady: steady).problems.count, 2)
        late[moved + 2] += 200
        XCTAssertEqual(MIDIClockGrid.check(clocks: late, beats: beats, steady: steady, skipped: 1).problems.count, 2,
                       "one period skipped excuses one clock")
        late[moved] += 205
        XCTAssertEqual(MIDIClockGrid.check(clocks: late, beats: beats, steady: steady, skipped: 2).problems.count, 2, "a period late is not")
    }

    /// A format 0 Standard MIDI File: its ticks a second (one tempo, at the start) and each
    /// escape event (`F7`) with its absolute tick.
    static func read(_ data: Data) throws -> (ticksPerSecond: Double, events: [(frame: Int64, bytes: [UInt8])]) {
        let bytes = [UInt8](data)
        func number(_ at: Int, _ count: Int) -> Int { (at..<at + count).reduce(0) { $0 << 8 | Int(bytes[$1]) } }
        guard bytes.count > 22, String(decoding: bytes[0..<4], as: UTF8.self) == "MThd", number(8, 2) == 0,
              String(decoding: bytes[14..<18], as: UTF8.self) == "MTrk" else { throw CocoaError(.fileReadCorruptFile) }
        let division = number(12, 2), end = 22 + number(18, 4)
        var at = 22, tick: Int64 = 0, microsecondsPerQuarter = 500_000, events: [(Int64, [UInt8])] = []
        func variableLength() -> Int {
            var value = 0
            while true {
                let byte = bytes[at]; at += 1
                value = value << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { return value }
            }
        }
        while at < end {
            tick += Int64(variableLength())
            let status = bytes[at]; at += 1
            if status == 0xFF {
                let type = bytes[at]; at += 1
                let length = variableLength()
                if type == 0x51 { microsecondsPerQuarter = number(at, 3) }
                at += length
            } else if status == 0xF7 || status == 0xF0 {
                let length = variableLength()
                events.append((tick, Array(bytes[at..<at + length])))
                at += length
            } else {
                throw CocoaError(.fileReadCorruptFile)  // no channel message is written
            }
        }
        return (Double(division) * 1_000_000 / Double(microsecondsPerQuarter), events)
    }
}
