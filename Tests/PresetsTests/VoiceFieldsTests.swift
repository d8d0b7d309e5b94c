import Foundation
import Inputs
import TestSupport
import EngineFixtures
import XCTest
import Yams
@testable import Engine
@testable import Presets

/// The fields every voice has are written once, in `VoiceFields`: what a voice plays when its
/// preset leaves them out, what decoding and encoding keep, and what validation refuses all
/// follow that table.
final class VoiceFieldsTests: XCTestCase {
    private func load(_ voiceLines: String) throws -> LoadedPreset {
        let temporary = try TemporaryFolder("voice-fields")
        defer { temporary.remove() }
        let yaml = "voices:\n  - name: v\n    kind: sample\n    file: \(Fixtures.presets.path)/sounds/uke.wav\n" + voiceLines
        try yaml.write(toFile: temporary.path + "/preset.yaml", atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: temporary.path)
    }

    /// A voice given none of the common fields plays the table's defaults: the engine's slot,
    /// its MIDI note out and the `voices` listing all hold them.
    func testAVoiceGivenNoCommonFieldsPlaysTheTablesDefaults() throws {
        let loaded = try load("")
        let definition = loaded.voices[0].definition
        for field in VoiceFields.all { XCTAssertNil(field.problem(definition), field.key) }
        let engine = try EngineGraph.build(preset: loaded, sampleRate: 48_000, maxFrames: 256)
        let slot = engine.slots[0]
        XCTAssertEqual(slot.gain, VoiceFields.gain.defaultValue)
        XCTAssertEqual(slot.pan, VoiceFields.pan.defaultValue)
        XCTAssertEqual(Int(slot.rate.everyNthBeat), VoiceFields.every.defaultValue)
        XCTAssertEqual(Int(slot.rate.subdivision), VoiceFields.subdivide.defaultValue)
        XCTAssertEqual(slot.enabled, VoiceFields.enabled.defaultValue! && !VoiceFields.mute.defaultValue!)
        XCTAssertEqual(slot.velocity, VoiceFields.velocity.defaultValue)
        XCTAssertEqual(slot.chokeGroup, VoiceFields.choke.defaultValue)
        XCTAssertEqual(slot.followsHeart, VoiceFields.onBeat.defaultValue)
        XCTAssertEqual(Int(slot.midiOut.channel) + 1, VoiceFields.midiOutChannel.defaultValue)
        XCTAssertEqual(slot.midiOut.key, 36, "no midi_out_note and no midi_note: 36 + the voice's index")
        XCTAssertEqual(slot.midiOut.length, Int64((VoiceFields.midiOutLength.defaultValue! * 48_000).rounded()))
        let listed = try XCTUnwrap(VoiceListing.voices(of: loaded).first)
        XCTAssertEqual(listed.gain, VoiceFields.gain.defaultValue)
        XCTAssertEqual(listed.pan, VoiceFields.pan.defaultValue)
        XCTAssertEqual(listed.rate.every, VoiceFields.every.defaultValue)
        XCTAssertEqual(listed.onBeat, VoiceFields.onBeat.defaultValue)
        XCTAssertEqual(VoiceFields.windowMS.value(in: definition), VoiceFields.windowMS.defaultValue)
    }

    /// Every common field given is decoded, kept and written back under its own key, in the
    /// table's order; `commonKeys` is the table's.
    func testEveryCommonFieldIsDecodedAndWrittenBackUnderItsKey() throws {
        let given: [(String, String)] = [
            ("gain", "0.5"), ("pan", "-0.25"), ("every", "3"), ("subdivide", "2"), ("enabled", "false"), ("mute", "true"),
            ("velocity", "0.75"), ("choke", "4"), ("on_beat", "false"), ("midi_note", "40"), ("midi_out_note", "41"),
            ("midi_out_channel", "10"), ("midi_out_length", "0.25"), ("inserts", "[]"), ("heart", "ensemble"),
            ("together", "[a, b]"), ("window_ms", "45"), ("group", "drums"),
        ]
        XCTAssertEqual(given.map(\.0), VoiceFields.all.map(\.key), "the test gives every field of the table, in its order")
        XCTAssertEqual(Preset.VoiceDefinition.commonKeys, ["name", "kind"] + given.map(\.0))
        let yaml = "name: v\nkind: click\n" + given.map { "\($0): \($1)" }.joined(separator: "\n") + "\n"
        let definition = try YAMLDecoder().decode(Preset.VoiceDefinition.self, from: yaml)
        XCTAssertEqual(VoiceFields.gain.given(in: definition), 0.5)
        XCTAssertEqual(VoiceFields.every.given(in: definition), 3)
        XCTAssertEqual(VoiceFields.midiOutChannel.given(in: definition), 10)
        XCTAssertEqual(VoiceFields.together.given(in: definition), ["a", "b"])
        XCTAssertEqual(VoiceFields.group.given(in: definition), "drums")
        XCTAssertEqual(definition.midiOutKey(index: 5), 41)
        XCTAssertFalse(definition.startsEnabled)
        let written = try YAMLEncoder().encode(definition)
        let keys = written.split(separator: "\n").compactMap { line -> String? in
            guard !line.hasPrefix(" "), !line.hasPrefix("-"), let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[..<colon])
        }
        XCTAssertEqual(keys, Preset.VoiceDefinition.commonKeys, written)
        let again = try YAMLDecoder().decode(Preset.VoiceDefinition.self, from: written)
        XCTAssertEqual(try YAMLEncoder().encode(again), written, "written back, it reads the same")
    }

    /// A common field's value just outside its range is refused on its own line, by its key.
    func testEveryRangedCommonFieldRefusesAValueOutsideItsRange() throws {
        let outside: [(String, String)] = [
            ("gain", "4.5"), ("pan", "1.5"), ("every", "17"), ("subdivide", "5"), ("velocity", "1.5"), ("choke", "17"),
            ("midi_note", "128"), ("midi_out_note", "-1"), ("midi_out_channel", "17"), ("midi_out_length", "61"),
            ("group", "master"),
        ]
        for (key, value) in outside {
            XCTAssertThrowsError(try load("    \(key): \(value)\n"), key) { error in
                XCTAssertTrue("\(error)".contains("preset.yaml:5: voices[0].\(key): "), "\(error)")
            }
        }
        XCTAssertNoThrow(try load("    gain: 4\n    pan: -1\n    every: 16\n    choke: 16\n    midi_out_length: 60\n"))
    }
}
