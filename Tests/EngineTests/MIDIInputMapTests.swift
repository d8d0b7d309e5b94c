import Inputs
import XCTest
@testable import Engine

/// The MIDI input map against the MIDI 1.0 meaning of the bytes, written out by hand.
final class MIDIInputMapTests: XCTestCase {
    func testNotesHitRegionsFirstThenVoicesAndControllersSetParameters() {
        let map = MIDIInputMap(.init(noteVoices: [36: 2, 38: 3], noteRegions: [38: 1],
                                     voiceControls: [7: (4, .gain), 10: (4, .pan), 64: (0, .enable)]))
        XCTAssertEqual(map.event(status: 0x90, key: 36, value: 127), .voiceTrigger(voice: 2, velocity: 1))
        XCTAssertEqual(map.event(status: 0x99, key: 36, value: 64), .voiceTrigger(voice: 2, velocity: 64 / 127), "any channel")
        XCTAssertEqual(map.event(status: 0x90, key: 38, value: 127), .regionHit(region: 1, velocity: 1), "a region note wins")
        XCTAssertNil(map.event(status: 0x90, key: 36, value: 0), "note-on with velocity 0 is a note-off")
        XCTAssertNil(map.event(status: 0x80, key: 36, value: 100), "note-off")
        XCTAssertNil(map.event(status: 0x90, key: 40, value: 100), "an unmapped note")
        XCTAssertEqual(map.event(status: 0xB0, key: 7, value: 127), .voiceParameter(voice: 4, .gain(1)))
        XCTAssertEqual(map.event(status: 0xB0, key: 10, value: 0), .voiceParameter(voice: 4, .pan(-1)))
        XCTAssertEqual(map.event(status: 0xB0, key: 10, value: 127), .voiceParameter(voice: 4, .pan(1)))
        XCTAssertEqual(map.event(status: 0xB0, key: 64, value: 63), .voiceParameter(voice: 0, .enable(false)))
        XCTAssertEqual(map.event(status: 0xB0, key: 64, value: 64), .voiceParameter(voice: 0, .enable(true)))
        XCTAssertNil(map.event(status: 0xB0, key: 11, value: 64), "an unmapped controller")
        XCTAssertNil(map.event(status: 0xE0, key: 0, value: 64), "pitch bend is not mapped")
    }
}
