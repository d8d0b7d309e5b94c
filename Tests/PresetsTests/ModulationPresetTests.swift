import Inputs
import Foundation
import TestSupport
import XCTest
import Realtime
import Engine
@testable import Presets

/// A preset's `modulations:`: every mistake one error naming the file, the line and the field
/// (a name it does not know with the closest it does), and the listing of what a preset offers.
final class ModulationPresetTests: XCTestCase {
    private func folder(_ text: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("modulation-preset")
        try text.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        return folder
    }

    private static let voices = """
        voices:
          - name: pad
            kind: click
            inserts: [{plugin: http://lv2plug.in/plugins/eg-amp}]
          - {name: tick, kind: click}
        """

    func testEveryMistakeNamesTheFileTheLineAndTheField() throws {
        let cases: [(String, String)] = [
            ("modulations:\n  - {from: heart.bmp, to: voice.pad.gain}\n", ":2: modulations[0].from: unknown source 'heart.bmp' (closest: heart.bpm"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gian\n", ":3: modulations[0].to: unknown destination 'voice.pad.gian' (closest: voice.pad.gain"),
            ("modulations:\n  - {from: heart.bpm, to: voice.pad.gain}\n  - {from: eeg.alpha, to: voice.pad.gain}\n",
             ":3: modulations[1].to: voice.pad.gain is already modulated by modulations[0]"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    curve: wobbly\n", ":4: modulations[0].curve: 'wobbly' is not linear, exp, log, smooth"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    curve: exp\n    to_range: [-1, 1]\n",
             ":4: modulations[0].curve: curve exp needs a to_range above 0"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    from_range: [60]\n", ":4: modulations[0].from_range: [60.0] is not [low, high]"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    smooth: 100\n", ":4: modulations[0].smooth: 100.0 is outside 0…60 s"),
            ("modulations:\n  - from: signal.a b\n    to: voice.pad.gain\n", ":2: modulations[0].from: a signal's name is letters"),
            ("modulations:\n  - from: midi.cc.128\n    to: voice.pad.gain\n", ":2: modulations[0].from: a MIDI controller is midi.cc.0 … midi.cc.127"),
            ("modulations:\n  - from: performer.carol.heart.bpm\n    to: voice.pad.gain\n", ":2: modulations[0].from: no performer in"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    amount: 2\n", ":4: modulations[0].amount: unknown field"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    on_dropout: {value: 70, seconds: -1}\n",
             ":4: modulations[0].on_dropout.seconds: -1.0 is outside 0…600 s"),
            ("hrv_window: 2\n", ":1: hrv_window: 2.0 is outside 5.0…300.0 s"),
            // The smaller points of issue 55: an unknown key inside on_dropout, a key set twice, what a number's place holds.
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    on_dropout: {value: 70, secs: 4}\n",
             ":4: modulations[0].on_dropout.secs: unknown field (known: after, seconds, value)"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    smooth: 1\n    smooth: 2\n",
             ":5: smooth: set twice in one mapping"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    smooth: [1, 2]\n", ":4: modulations[0].smooth: expected a number, found a list"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    smooth: {a: 1}\n", ":4: modulations[0].smooth: expected a number, found a mapping"),
            ("modulations:\n  - from: heart.bpm\n    to: voice.pad.gain\n    on_dropout: {value: null}\n",
             ":4: modulations[0].on_dropout.value: expected a number, found nothing"),
        ]
        for (text, expected) in cases {
            let folder = try folder(text + Self.voices)
            defer { folder.remove() }
            XCTAssertThrowsError(try EngineGraph.setup(preset: LoadedPreset.load(path: folder.path), sampleRate: 48_000, maxFrames: 256)) { error in
                let message = "\(error)"
                XCTAssertTrue(message.hasPrefix(folder.file("preset.yaml")), message)
                XCTAssertTrue(message.contains(expected), "\(message)\n  expected: \(expected)")
            }
        }
    }

    func testAModulationResolvesToItsDestinationWithTheDefaults() throws {
        let folder = try folder("""
            performers: [alice, bob]
            modulations:
              - {from: performer.bob.heart.rmssd, to: voice.pad.insert.1.gain, to_range: [-30, 0], smooth: 2}
              - {from: signal.belt, to: voice.tick.pan, enabled: false}
              - {from: midi.cc.74, to: master.gain, on_dropout: {value: 64}}
            """ + "\n" + Self.voices)
        defer { folder.remove() }
        let setup = try EngineGraph.setup(preset: LoadedPreset.load(path: folder.path), sampleRate: 48_000, maxFrames: 256)
        XCTAssertEqual(setup.signalNames, ["belt"])
        let first = setup.modulations[0]
        XCTAssertEqual(first.source, .heart(performer: 1, .rmssd))
        XCTAssertEqual(first.destination, .insertControl(InsertAddress(chain: 0, stage: 0, port: 0)))
        XCTAssertEqual(first.mapping, ModulationMapping(from: (0, 120), to: (-30, 0)), "the source's own range")
        XCTAssertEqual(first.minimum, -90, "eg-amp's gain port: −90…24 dB")
        XCTAssertEqual(first.maximum, 24)
        XCTAssertEqual(first.smoothSeconds, 2)
        XCTAssertEqual(setup.modulations[1].destination, .voicePan(1))
        XCTAssertEqual(setup.modulations[1].mapping, ModulationMapping(from: (0, 1), to: (-1, 1)))
        XCTAssertFalse(setup.modulations[1].enabled)
        XCTAssertEqual(setup.modulations[2].dropout, Modulation.Dropout(value: 64, seconds: 2, after: 2))
        XCTAssertEqual(setup.modulations[2].mapping, ModulationMapping(from: (0, 127), to: (0, 1)))
    }

    func testTheListingOffersEverySourceAndEveryDestination() throws {
        let folder = try folder("performers: [alice]\n" + Self.voices)
        defer { folder.remove() }
        let listing = try ModulationListing.of(LoadedPreset.load(path: folder.path))
        let sources = Set(listing.sources.map(\.name))
        for name in ["heart.bpm", "heart.rmssd", "heart.breath_rate", "beat.phase", "eeg.gamma", "eeg.relaxation", "pose.spread",
                     "performer.alice.pose.left.x", "signal.NAME", "midi.cc.N", "lsl.STREAM.CHANNEL", "performer.NAME.SOURCE"] {
            XCTAssertTrue(sources.contains(name), name)
        }
        let destinations = Dictionary(uniqueKeysWithValues: listing.destinations.map { ($0.name, $0) })
        XCTAssertEqual(destinations["voice.pad.insert.1.gain"]?.range, [-90, 24])
        XCTAssertEqual(destinations["voice.pad.insert.1.bypass"]?.takes, "toggled")
        for name in ["voice.pad.gain", "voice.tick.pan", "voice.tick.velocity", "master.gain"] { XCTAssertNotNil(destinations[name], name) }
    }
}
