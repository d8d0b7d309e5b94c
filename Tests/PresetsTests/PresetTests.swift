import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Presets

final class PresetTests: XCTestCase {
    private func writePreset(_ text: String) -> String {
        let folder = try! TemporaryFolder("preset").path
        _ = FileManager.default.createFile(atPath: folder + "/preset.yaml", contents: Data(text.utf8))
        return folder
    }

    func testShippedPresetsLoad() throws {
        for name in ["click", "default", "pulsonify", "tambour", "musicmood", "ensemble", "duo", "breathe", "reach"] {
            let loaded = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent(name).path)
            XCTAssertFalse(loaded.voices.isEmpty)
            for voice in loaded.voices {
                for sound in voice.sounds { XCTAssertTrue(FileManager.default.fileExists(atPath: sound.path), sound.path) }
            }
        }
    }

    func testErrorsNameTheFileTheLineAndTheField() {
        let cases: [(String, String)] = [
            ("voices:\n  - name: a\n    kind: click\n    gian: 2\n", ":4: voices[0].gian: unknown field"),
            ("voices:\n  - name: a\n    kind: trumpet\n", ":3: voices[0].kind: unknown voice kind"),
            ("voices:\n  - name: a\n    kind: click\n    gain: loud\n", ":4: voices[0].gain: expected a number"),
            ("voices:\n  - name: a\n    kind: click\n    gain: 9\n", ":4: voices[0].gain: 9.0 is outside"),
            ("voices:\n  - name: a\n    kind: click\n    every: 0\n", ":4: voices[0].every: 0 is outside 1…16"),
            ("voices:\n  - name: a\n    kind: click\n    subdivide: 5\n", ":4: voices[0].subdivide: 5 is not 1, 2, 3 or 4"),
            ("voices:\n  - kind: click\n", ":2: voices[0].name: missing"),
            ("voices:\n  - name: a\n    kind: sample\n    file: nothere.wav\n", ":4: voices[0].file: sound file not found"),
            ("voices:\n  - name: a\n    kind: click\n  - name: a\n    kind: click\n", ":4: voices[1].name: a second voice named 'a'"),
            ("bpm: 0\nvoices:\n  - name: a\n    kind: click\n", ":1: bpm: 0.0 is not a heart rate"),
            ("voices: [\n  - name: a\n", "not valid YAML"),
            ("voices: []\n", ":1: voices: a preset needs at least one voice"),
            ("voices:\n  - name: a\n    kind: click\n    midi_out_channel: 17\n", ":4: voices[0].midi_out_channel: 17 is outside 1…16"),
            ("voices:\n  - name: a\n    kind: click\n    midi_out_note: 128\n", ":4: voices[0].midi_out_note: 128 is outside 0…127"),
            ("dropout: {fade_seconds: 100}\nvoices:\n  - name: a\n    kind: click\n", ":1: dropout.fade_seconds: 100.0 is outside 0.05…60"),
        ]
        for (text, expected) in cases {
            let folder = writePreset(text)
            XCTAssertThrowsError(try LoadedPreset.load(path: folder)) { error in
                let message = "\(error)"
                XCTAssertTrue(message.hasPrefix(folder + "/preset.yaml"), message)
                XCTAssertTrue(message.contains(expected), "'\(message)' lacks '\(expected)'")
            }
        }
        XCTAssertThrowsError(try LoadedPreset.load(path: "/nonexistent/preset")) { error in
            XCTAssertTrue("\(error)".hasPrefix("/nonexistent/preset: no such preset"), "\(error)")
        }
    }

    /// The preset's own numbers are one table: each refuses a value past its range, naming its
    /// path, and a preset without it gets the table's default.
    func testEveryPresetFieldChecksItsRangeAndHasItsDefault() throws {
        func yaml(_ path: String, _ value: Double) -> String {
            let keys = path.split(separator: ".").map(String.init)
            return keys.count == 1 ? "\(keys[0]): \(value)\n" : "\(keys[0]): {\(keys[1]): \(value)}\n"
        }
        for field in PresetFields.all {
            let folder = writePreset(yaml(field.path, field.range.upperBound + 1) + "voices:\n  - {name: a, kind: click}\n")
            XCTAssertThrowsError(try LoadedPreset.load(path: folder), field.path) { error in
                XCTAssertTrue("\(error)".contains("\(field.path): \(field.range.upperBound + 1) is outside"), "\(error)")
            }
            let inside = writePreset(yaml(field.path, field.range.upperBound) + "voices:\n  - {name: a, kind: click}\n")
            XCTAssertEqual(field.given(in: try LoadedPreset.load(path: inside).preset), field.range.upperBound, field.path)
        }
        let plain = try LoadedPreset.load(path: writePreset("voices:\n  - {name: a, kind: click}\n"))
        let setup = try EngineGraph.setup(preset: plain, sampleRate: 48_000, maxFrames: 256)
        XCTAssertEqual(Double(setup.heartFadeSeconds), PresetFields.dropoutFade.defaultValue)
        XCTAssertEqual(plain.dropoutRule.seconds, PresetFields.dropoutSeconds.defaultValue)
        XCTAssertEqual(plain.preset.moodModel.window, PresetFields.moodWindow.defaultValue)
    }

    func testAnUnreadableSoundNamesThePresetLine() throws {
        let folder = writePreset("voices:\n  - name: a\n    kind: sample\n    file: bad.wav\n")
        _ = FileManager.default.createFile(atPath: folder + "/bad.wav", contents: Data("not audio".utf8))
        let loaded = try LoadedPreset.load(path: folder)
        XCTAssertThrowsError(try EngineGraph.build(preset: loaded, sampleRate: 48_000, maxFrames: 256)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix(folder + "/preset.yaml:4: voices[0].file: "), message)
            XCTAssertTrue(message.contains("bad.wav"), message)
        }
    }

    /// Yams composes recursively: 5,000 levels crashed it (a stack overflow). Now one line.
    func testAPresetNestedThousandsDeepIsAnErrorNotACrash() throws {
        for (text, line) in [("voices: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n", 1),
                             ("name: deep\nvoices:\n" + (0..<200).map { String(repeating: " ", count: $0 + 1) + "- \n" }.joined(), 65)] {
            let folder = writePreset(text)
            XCTAssertThrowsError(try LoadedPreset.load(path: folder)) { error in
                XCTAssertEqual("\(error)", "\(folder)/preset.yaml:\(line): nested 65 deep (at most 64)")
            }
        }
        let compact = writePreset("voices:\n  - " + String(repeating: "- ", count: 100) + "x\n")
        XCTAssertThrowsError(try LoadedPreset.load(path: compact)) { XCTAssertTrue("\($0)".contains(":2: nested"), "\($0)") }
        // A real preset's depth is far below the limit.
        XCTAssertNoThrow(try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("tambour").path))
    }

    /// A FIFO named as a sound would block the load forever.
    func testASoundThatIsAFIFOIsRefused() throws {
        let folder = writePreset("voices:\n  - name: a\n    kind: sample\n    file: pipe.wav\n")
        XCTAssertEqual(mkfifo(folder + "/pipe.wav", 0o600), 0)
        let loaded = try LoadedPreset.load(path: folder)
        XCTAssertThrowsError(try EngineGraph.build(preset: loaded, sampleRate: 48_000, maxFrames: 256)) { error in
            XCTAssertTrue("\(error)".hasPrefix(folder + "/preset.yaml:4: voices[0].file: "), "\(error)")
            XCTAssertTrue("\(error)".contains("a FIFO, not a regular file"), "\(error)")
        }
        let fifoPreset = NSTemporaryDirectory() + "pulsejack-fifo-preset-\(getpid()).yaml"
        unlink(fifoPreset)
        XCTAssertEqual(mkfifo(fifoPreset, 0o600), 0)
        defer { unlink(fifoPreset) }
        XCTAssertThrowsError(try LoadedPreset.load(path: fifoPreset)) { XCTAssertTrue("\($0)".contains("a FIFO"), "\($0)") }
    }
}
