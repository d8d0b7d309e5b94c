import Inputs
import Foundation
import Voices
import TestSupport
import EngineFixtures
import XCTest
@testable import Presets

/// The voice-kind descriptors are the one description of each kind: these tests write YAML
/// presets by hand (the reference) and check that loading them obeys what each descriptor says.
final class VoiceKindTests: XCTestCase {
    private let clip = Fixtures.presets.appendingPathComponent("sounds/uke.wav").path

    private func load(_ yaml: String) throws -> LoadedPreset {
        let temporary = try TemporaryFolder("kinds")
        defer { temporary.remove() }
        let folder = temporary.path
        try yaml.write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: folder)
    }

    /// A voice of `descriptor`'s kind in YAML, its sounds given (and the text fields its first
    /// workout names, such as an lv2 voice's plugin), plus `extra` lines.
    private func voiceYAML(_ descriptor: any VoiceKindDescriptor, _ extra: String = "") -> String {
        let definition = Preset.VoiceDefinition(name: "v", kind: descriptor.kind)
        let sounds = descriptor.requiredSounds(definition).map { "    \($0): \(clip)\n" }.joined()
        let texts = (descriptor.workouts.first ?? [:]).sorted { $0.key < $1.key }.compactMap { key, value -> String? in
            guard case .text = descriptor.field(key)?.value, let text = value.text else { return nil }
            return "    \(key): \(text)\n"
        }.joined()
        return "voices:\n  - name: v\n    kind: \(descriptor.kind)\n" + sounds + texts + extra
    }

    /// A default is written once, in the field table: a voice of each kind built from no fields
    /// holds exactly its fields' defaults (as the voice reports them back), and the listing shows
    /// the same values.
    func testAVoiceBuiltFromNoFieldsHoldsItsFieldTablesDefaults() throws {
        var checked = 0
        for descriptor in VoiceKinds.all {
            let engine = try EngineGraph.build(preset: load(voiceYAML(descriptor)), sampleRate: 48_000, maxFrames: 256)
            let parameters = descriptor.parameters(of: engine.slots[0].voice)
            for field in descriptor.fields {
                guard let expected = field.defaultOption, let held = parameters[field.key] else { continue }
                if let number = expected.number, let value = held.number, case .number = expected {
                    XCTAssertEqual(value, number, accuracy: 1e-6, "\(descriptor.kind).\(field.key)")
                } else {
                    XCTAssertEqual(held, expected, "\(descriptor.kind).\(field.key)")
                }
                checked += 1
            }
            XCTAssertTrue(Set(parameters.keys).isSubset(of: descriptor.fields.map(\.key)), "\(descriptor.kind) reports only its fields")
        }
        // Every kind's defaulted field that a voice can report back: all but the arpeggio's chords and
        // base note (held as MIDI notes), the lub-dub's delay and gain (single by default) and the
        // tap's instrument notes (no instrument by default).
        let defaulted = VoiceKinds.all.reduce(0) { $0 + $1.fields.filter { $0.defaultOption != nil }.count }
        XCTAssertEqual(checked, defaulted - 5, "\(checked) of \(defaulted) defaulted fields read back")
        XCTAssertEqual(ArpeggioKind().field("gate")?.defaultValue, "0.8", "the listing shows the table's default")
        XCTAssertEqual(ArpeggioKind().field("chords")?.defaultValue, "[C, G, Am, F]")
    }

    /// The other half of "written once": a voice made in code with its own defaults (no preset)
    /// holds what the field table offers, so neither can drift from the other.
    func testAVoiceMadeWithItsOwnDefaultsHoldsTheTablesDefaults() throws {
        let sound = SampleBuffer(channelData: [[1, 0.5, 0.25]], sampleRate: 48_000)
        let voices: [(any VoiceKindDescriptor, any Voice)] = [
            (SampleKind(), SampleVoice(sample: sound)),
            (ConvolutionKind(), SparseConvolutionVoice(clip: sound, shape: .single)),
            (TrackKind(), TrackPlayerVoice(track: sound, trackBPM: nil)),
            (ArpeggioKind(), ArpeggioVoice(settings: ArpeggioVoice.Settings())),
        ]
        var checked = 0
        for (descriptor, voice) in voices {
            let held = descriptor.parameters(of: voice)
            XCTAssertFalse(held.isEmpty, "\(descriptor.kind) reports what it holds")
            for (key, value) in held {
                guard let expected = descriptor.field(key)?.defaultOption else { continue }
                XCTAssertEqual(value, expected, "\(descriptor.kind).\(key): the voice's own default against the table's")
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 8, "polyphony twice, the stretch range, five of the arpeggio's")
        // The arpeggio's progression, held as MIDI notes: the table's chord names parsed from its base note.
        let arpeggio = ArpeggioKind()
        let chords = try XCTUnwrap(arpeggio.field("chords")?.defaultOption?.texts)
        let base = try XCTUnwrap(arpeggio.field("base_note")?.defaultOption?.whole)
        XCTAssertEqual(ArpeggioVoice.Settings().chords, ArpeggioVoice.Settings.parse(chords, baseNote: base))
    }

    func testEveryKindLoadsAndBuildsWithItsDefaults() throws {
        for descriptor in VoiceKinds.all {
            let loaded = try load(voiceYAML(descriptor))
            XCTAssertEqual(loaded.voices[0].definition.kind, descriptor.kind)
            let engine = try EngineGraph.build(preset: loaded, sampleRate: 48_000, maxFrames: 256)
            XCTAssertEqual(engine.handle.voiceIndex(named: "v"), 0, "\(descriptor.kind)")
        }
    }

    func testEveryRangedFieldRefusesAValueJustOutsideItsRangeOnItsLine() throws {
        var checked = 0
        for descriptor in VoiceKinds.all {
            for field in descriptor.fields {
                let outside: String
                switch field.value {
                case .number(let range): outside = String(range.upperBound + 0.5)
                case .whole(let range): outside = String(range.upperBound + 1)
                case .choice: outside = "nonsense"
                default: continue
                }
                let yaml = voiceYAML(descriptor, "    \(field.key): \(outside)\n")
                let line = yaml.split(separator: "\n").firstIndex { $0.hasPrefix("    \(field.key):") }! + 1
                XCTAssertThrowsError(try load(yaml), "\(descriptor.kind).\(field.key)") { error in
                    XCTAssertTrue("\(error)".contains("preset.yaml:\(line): voices[0].\(field.key): "), "\(error)")
                }
                // The edge of the range itself is accepted.
                let inside: String
                switch field.value {
                case .number(let range): inside = String(range.upperBound)
                case .whole(let range): inside = String(range.lowerBound)
                case .choice(let words): inside = words.last!
                default: continue
                }
                XCTAssertNoThrow(try load(voiceYAML(descriptor, "    \(field.key): \(inside)\n")), "\(descriptor.kind).\(field.key)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 10)
    }

    func testAFieldOfAnotherKindIsRefusedByName() {
        let sample = VoiceKinds.descriptor(.sample)!
        XCTAssertThrowsError(try load(voiceYAML(sample, "    chords: [C, G]\n"))) { error in
            XCTAssertTrue("\(error)".contains("voices[0].chords: a sample voice has no 'chords' (only arpeggio voices have it)"), "\(error)")
        }
        let click = VoiceKinds.descriptor(.click)!
        XCTAssertThrowsError(try load(voiceYAML(click, "    polyphony: 4\n"))) { error in
            XCTAssertTrue("\(error)".contains("only sample or convolution voices have it"), "\(error)")
        }
        XCTAssertThrowsError(try load(voiceYAML(sample, "    octaves: many\n"))) { error in
            XCTAssertTrue("\(error)".contains("voices[0].octaves: expected a whole number"), "\(error)")
        }
    }

    func testEveryKindMissingASoundSaysWhich() {
        for descriptor in VoiceKinds.all {
            let needs = descriptor.requiredSounds(Preset.VoiceDefinition(name: "v", kind: descriptor.kind))
            guard let first = needs.first else { continue }
            let yaml = voiceYAML(descriptor).split(separator: "\n").filter { !$0.hasPrefix("    \(first):") }.joined(separator: "\n")
            XCTAssertThrowsError(try load(yaml)) { error in
                XCTAssertTrue("\(error)".contains("voice needs '\(first)'"), "\(error)")
            }
        }
    }

    func testKindsAreListedWithTheirFields() throws {
        let listing = VoiceKinds.all.map(\.kind.rawValue)
        XCTAssertEqual(listing, ["click", "sample", "tap", "arpeggio", "convolution", "track", "lv2"])
        XCTAssertEqual(Set(listing).count, listing.count, "one descriptor per kind")
        // A field shared by several kinds has one type, or decoding it would depend on the kind.
        var types: [String: String] = [:]
        for descriptor in VoiceKinds.all {
            for field in descriptor.fields {
                let type = "\(field.value)".split(separator: "(").first.map(String.init)!
                if let seen = types[field.key] { XCTAssertEqual(seen, type, field.key) } else { types[field.key] = type }
                XCTAssertFalse(Preset.VoiceDefinition.commonKeys.contains(field.key), "\(field.key) is common")
            }
        }
    }
}
