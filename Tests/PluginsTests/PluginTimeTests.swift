import CLV2
import Plugins
import Realtime
import XCTest

/// The block's time as plugins are told it, and the `time:Position` object as LV2's atom
/// layout has it — read back by a parser written here from lv2's atom.h, not the writer's.
final class PluginTimeTests: XCTestCase {
    func testAPositionIsALV2TimePositionObjectAfterTheEventsBeforeIt() throws {
        pj_time_prepare()
        let sequence = AtomSequence(capacityBytes: 1024, sequenceType: pj_urid_map(pj_lv2_atom_sequence()),
                                    chunkType: pj_urid_map(pj_lv2_atom_chunk()))
        sequence.resetAsInput()
        let midi = pj_urid_map(pj_lv2_midi_event())
        XCTAssertTrue(sequence.append(frame: 3, type: midi, bytes: (0x90, 60, 100), count: 3))
        let position = TimePosition(frame: 123_456, beat: 9.75, beatsPerMinute: 96, beatsPerBar: 4, speed: 1, beatsPerFrame: 0)
        XCTAssertTrue(sequence.append(frame: 17, position: position))
        let events = Self.events(of: sequence.pointer)
        XCTAssertEqual(events.count, 2)
        XCTAssertEqual(events[0].frame, 3)
        XCTAssertEqual(events[0].type, midi)
        XCTAssertEqual(events[1].frame, 17)
        XCTAssertEqual(events[1].type, pj_urid_map("http://lv2plug.in/ns/ext/atom#Object"))
        let body = events[1].body
        XCTAssertEqual(body.load(fromByteOffset: 4, as: UInt32.self), pj_urid_map("http://lv2plug.in/ns/ext/time#Position"))
        let properties = Self.properties(of: body + 8, bytes: events[1].size - 8)
        func value<T>(_ key: String, _ type: String, as: T.Type) -> T? {
            guard let found = properties[pj_urid_map("http://lv2plug.in/ns/ext/time#" + key)],
                  found.type == pj_urid_map("http://lv2plug.in/ns/ext/atom#" + type) else { return nil }
            return found.value.load(as: T.self)
        }
        XCTAssertEqual(value("frame", "Long", as: Int64.self), 123_456)
        XCTAssertEqual(value("speed", "Float", as: Float.self), 1)
        XCTAssertEqual(value("bar", "Long", as: Int64.self), 2)
        XCTAssertEqual(value("barBeat", "Float", as: Float.self), 1.75)
        XCTAssertEqual(value("beat", "Double", as: Double.self), 9.75)
        XCTAssertEqual(value("beatUnit", "Int", as: Int32.self), 4)
        XCTAssertEqual(value("beatsPerBar", "Float", as: Float.self), 4)
        XCTAssertEqual(value("beatsPerMinute", "Float", as: Float.self), 96)
        XCTAssertEqual(properties.count, 8)
    }

    func testAFullSequenceTakesNoPosition() {
        pj_time_prepare()
        let sequence = AtomSequence(capacityBytes: 200, sequenceType: pj_urid_map(pj_lv2_atom_sequence()),
                                    chunkType: pj_urid_map(pj_lv2_atom_chunk()))
        sequence.resetAsInput()
        XCTAssertFalse(sequence.append(frame: 0, position: PluginTime.idle), "216 bytes of event in a 200-byte buffer")
        XCTAssertEqual(Self.events(of: sequence.pointer).count, 0)
    }

    func testTheBlocksChangesAndWhereTheGridStandsBetweenThem() {
        let time = PluginTime()
        let start = TimePosition(frame: 1000, beat: 2, beatsPerMinute: 120, beatsPerBar: 4, speed: 1, beatsPerFrame: 120 / 60 / 48_000)
        time.beginBlock(start)
        XCTAssertEqual(time.position(atOffset: 240).beat, 2 + 240 * start.beatsPerFrame, accuracy: 1e-12)
        XCTAssertEqual(time.position(atOffset: 240).frame, 1240)
        var changed = start.movedOn(by: 100)
        changed.beatsPerMinute = 96
        changed.beatsPerFrame = 96.0 / 60 / 48_000
        time.record(changed, atOffset: 100)
        XCTAssertEqual(time.position(atOffset: 50), start.movedOn(by: 50), "before the change: the opening, moved on")
        XCTAssertEqual(time.position(atOffset: 200).beat, changed.beat + 100 * changed.beatsPerFrame, accuracy: 1e-12)
        // A second change at one frame replaces the first; past the list's room, the last.
        var again = changed
        again.speed = 0
        time.record(again, atOffset: 100)
        XCTAssertEqual(time.count, 1)
        XCTAssertEqual(time[0].position.speed, 0)
        for offset in 101...(100 + PluginTime.capacity + 5) { time.record(changed.movedOn(by: Int64(offset - 100)), atOffset: offset) }
        XCTAssertEqual(time.count, PluginTime.capacity)
        XCTAssertEqual(time[PluginTime.capacity - 1].offset, 100 + PluginTime.capacity + 5, "the newest change is kept")
    }

    func testABarIsFlooredBelowBeatZero() {
        let before = TimePosition(frame: 0, beat: -0.5, beatsPerMinute: 120, beatsPerBar: 4, speed: 1, beatsPerFrame: 0)
        XCTAssertEqual(before.bar.index, -1)
        XCTAssertEqual(before.bar.beat, 3.5)
        let quantum = TimePosition(frame: 0, beat: 13, beatsPerMinute: 120, beatsPerBar: 3, speed: 1, beatsPerFrame: 0)
        XCTAssertEqual(quantum.bar.index, 4)
        XCTAssertEqual(quantum.bar.beat, 1)
    }

    // MARK: - lv2 atom.h, read here

    /// Each event of an `atom:Sequence`: its frame, body size and type, and where its body is.
    static func events(of buffer: UnsafeMutableRawPointer) -> [(frame: Int64, size: Int, type: UInt32, body: UnsafeMutableRawPointer)] {
        let total = Int(buffer.load(fromByteOffset: 0, as: UInt32.self))  // the sequence body: unit, pad, events
        var found: [(Int64, Int, UInt32, UnsafeMutableRawPointer)] = [], offset = 16
        while offset < 8 + total {
            let size = Int(buffer.load(fromByteOffset: offset + 8, as: UInt32.self))
            found.append((buffer.load(fromByteOffset: offset, as: Int64.self), size, buffer.load(fromByteOffset: offset + 12, as: UInt32.self),
                          buffer + offset + 16))
            offset += 16 + (size + 7) / 8 * 8
        }
        return found
    }

    /// An object body's properties (after its id and type): key → value type and bytes.
    static func properties(of start: UnsafeMutableRawPointer, bytes: Int) -> [UInt32: (type: UInt32, value: UnsafeMutableRawPointer)] {
        var found: [UInt32: (UInt32, UnsafeMutableRawPointer)] = [:], offset = 0
        while offset < bytes {
            let key = start.load(fromByteOffset: offset, as: UInt32.self)
            let size = Int(start.load(fromByteOffset: offset + 8, as: UInt32.self))
            found[key] = (start.load(fromByteOffset: offset + 12, as: UInt32.self), start + offset + 16)
            offset += 16 + (size + 7) / 8 * 8
        }
        return found
    }
}
