import Inputs
import Foundation
import TestSupport
import XCTest
import Engine
import Presets

/// `outputs:`, `midi_out:` and `group:`: which buses and ports a preset asks for, the command
/// line overriding it, and one clear error for every layout that cannot be.
final class OutputLayoutTests: XCTestCase {
    private var folders: [String] = []

    override func tearDown() {
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
    }

    private func preset(_ text: String) -> String {
        let folder = try! TemporaryFolder("layout").path
        _ = FileManager.default.createFile(atPath: folder + "/preset.yaml", contents: Data(text.utf8))
        folders.append(folder)
        return folder
    }

    private let band = """
        voices:
          - {name: kick, kind: click, group: drums}
          - {name: hat, kind: click, subdivide: 2, group: drums}
          - {name: arp, kind: arpeggio, group: music}
          - {name: tick, kind: click}
        """

    func testTheDefaultIsTheMasterOnly() throws {
        let layout = try OutputLayout(preset: LoadedPreset.load(path: preset(band)))
        XCTAssertEqual(layout.mode, .master)
        XCTAssertEqual(layout.midi, .combined)
        XCTAssertEqual(layout.buses, [])
        XCTAssertEqual(layout.voiceBus, [-1, -1, -1, -1])
        XCTAssertFalse(layout.addsPorts)
        XCTAssertNil(layout.summary)
    }

    func testVoicesGiveEachVoiceAPairInPresetOrder() throws {
        let layout = try OutputLayout(preset: LoadedPreset.load(path: preset("outputs: voices\nmidi_out: voices\n" + band)))
        XCTAssertEqual(layout.buses, ["kick", "hat", "arp", "tick"])
        XCTAssertEqual(layout.voiceBus, [0, 1, 2, 3])
        XCTAssertEqual(layout.audioPorts.map(\.name), ["kick_L", "kick_R", "hat_L", "hat_R", "arp_L", "arp_R", "tick_L", "tick_R"])
        XCTAssertEqual(layout.audioPorts[3].pretty, "Voice hat Right")
        XCTAssertEqual(layout.midiPorts.map(\.name), ["kick_midi", "hat_midi", "arp_midi", "tick_midi"])
        XCTAssertEqual(layout.voiceMIDIPort, [0, 1, 2, 3])
    }

    func testGroupsGatherTheirVoicesAndTheRestStayOnTheMaster() throws {
        let loaded = try LoadedPreset.load(path: preset("outputs: groups\n" + band))
        let layout = try OutputLayout(preset: loaded)
        XCTAssertEqual(layout.buses, ["drums", "music"])
        XCTAssertEqual(layout.voiceBus, [0, 0, 1, -1])
        XCTAssertEqual(layout.audioPorts.map(\.pretty), ["Group drums Left", "Group drums Right", "Group music Left", "Group music Right"])
        XCTAssertEqual(layout.midiPorts.count, 0)
        // The command line overrides the preset, both ways.
        XCTAssertEqual(try OutputLayout(preset: loaded, mode: .master).buses, [])
        XCTAssertEqual(try OutputLayout(preset: loaded, mode: .voices, midi: .voices).midiVoices, ["kick", "hat", "arp", "tick"])
        // A render's stems follow the preset's groups, or are per voice.
        XCTAssertEqual(try OutputLayout.stems(preset: loaded, mode: nil).buses, ["drums", "music"])
        XCTAssertEqual(try OutputLayout.stems(preset: loaded, mode: .voices).buses, ["kick", "hat", "arp", "tick"])
        let plain = try LoadedPreset.load(path: preset(band))
        XCTAssertEqual(try OutputLayout.stems(preset: plain, mode: nil).buses, ["kick", "hat", "arp", "tick"])
    }

    func testBadLayoutsAreOneErrorNamingTheFileAndLine() throws {
        let cases: [(String, String)] = [
            ("outputs: stems\n" + band, ":1: outputs: 'stems' is not master, voices or groups"),
            ("midi_out: each\n" + band, ":1: midi_out: 'each' is not combined or voices"),
            ("outputs: groups\nvoices:\n  - {name: a, kind: click}\n", ":1: outputs: groups: no voice has a group"),
            ("outputs: voices\nvoices:\n  - {name: a, kind: click}\n  - {name: out, kind: click}\n",
             ":4: voices[1].name: 'out' would give ports named like the master's or the input's"),
            ("outputs: voices\nvoices:\n  - name: 'a:b'\n    kind: click\n", ":3: voices[0].name: 'a:b' cannot name a JACK port"),
            ("midi_out: voices\nvoices:\n  - name: 'a:b'\n    kind: click\n", ":3: voices[0].name: 'a:b' cannot name a JACK port"),
            ("outputs: groups\nvoices:\n  - {name: a, kind: click, group: in}\n", ":3: voices[0].group: 'in' would give ports named like"),
            ("voices:\n  - name: a\n    kind: click\n    group: master\n", ":4: voices[0].group: 'master' is not a group name"),
            ("voices:\n  - name: a\n    kind: click\n    group: big band\n", ":4: voices[0].group: 'big band' is not a group name"),
        ]
        for (text, expected) in cases {
            let path = preset(text)
            XCTAssertThrowsError(try LoadedPreset.load(path: path), text) { error in
                let message = "\(error)"
                XCTAssertTrue(message.hasPrefix(path + "/preset.yaml"), message)
                XCTAssertTrue(message.contains(expected), "\(message) lacks \(expected)")
            }
        }
        // Names JACK cannot take are fine while they name no port.
        XCTAssertNoThrow(try LoadedPreset.load(path: preset("voices:\n  - {name: out, kind: click}\n")))
        // The command line's choice is named as such.
        let loaded = try LoadedPreset.load(path: preset("voices:\n  - {name: a, kind: click}\n"))
        XCTAssertThrowsError(try OutputLayout(preset: loaded, mode: .groups)) { error in
            XCTAssertTrue("\(error)".contains("--outputs groups: groups: no voice has a group"), "\(error)")
        }
    }

    func testASavedPresetKeepsItsLayout() throws {
        let loaded = try LoadedPreset.load(path: preset("outputs: groups\nmidi_out: voices\n" + band))
        let folder = preset(band)
        try loaded.save(to: folder + "/preset.yaml", bpm: nil, states: [:])
        let saved = try LoadedPreset.load(path: folder)
        XCTAssertEqual(try OutputLayout(preset: saved), try OutputLayout(preset: loaded))
    }
}
