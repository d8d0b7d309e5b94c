import UserFiles
import Inputs
import Foundation
import Engine

extension OutputLayout {
    /// The layout `preset` asks for, `mode` and `midi` (the command line's) overriding its
    /// `outputs:` and `midi_out:`. Throws one error naming the file and line, or the option.
    public init(preset loaded: LoadedPreset, mode asked: Mode? = nil, midi askedMIDI: MIDIMode? = nil) throws {
        try self.init(preset: loaded, mode: asked, midi: askedMIDI, namesPorts: true)
    }

    /// The stems `render --stems` writes: one per group when `mode` (else the preset's
    /// `outputs:`) is groups, else one per voice.
    public static func stems(preset loaded: LoadedPreset, mode asked: Mode?) throws -> OutputLayout {
        let groups = try (asked ?? loaded.outputsMode()) == .groups
        return try OutputLayout(preset: loaded, mode: groups ? .groups : .voices, midi: .combined, namesPorts: false,
                                option: asked == .groups ? "--outputs groups" : nil)
    }

    /// `namesPorts`: the buses become JACK ports, whose names have rules of their own.
    private init(preset loaded: LoadedPreset, mode asked: Mode?, midi askedMIDI: MIDIMode?, namesPorts: Bool, option: String? = nil) throws {
        let names = loaded.voices.map(\.definition.name)
        let mode = try asked ?? loaded.outputsMode()
        let midi = try askedMIDI ?? loaded.midiOutMode()
        let buses: [String], voiceBus: [Int32]
        let option = option ?? asked.map { "--outputs \($0.rawValue)" }
        switch mode {
        case .master:
            buses = []
            voiceBus = Array(repeating: -1, count: names.count)
        case .voices:
            buses = names
            voiceBus = names.indices.map(Int32.init)
        case .groups:
            var groups: [String] = []
            voiceBus = loaded.voices.map { voice in
                guard let group = voice.definition.group else { return -1 }
                if let known = groups.firstIndex(of: group) { return Int32(known) }
                groups.append(group)
                return Int32(groups.count - 1)
            }
            buses = groups
            if groups.isEmpty {
                throw InputError(file: loaded.file, line: option == nil ? loaded.line("outputs") : nil, field: option ?? "outputs",
                                 "groups: no voice has a group (give voices one, e.g. `group: drums`)")
            }
        }
        self.init(mode: mode, midi: midi, buses: buses, voiceBus: voiceBus, midiVoices: midi == .voices ? names : [])
        guard namesPorts else { return }
        for (index, bus) in buses.enumerated() {
            if let problem = OutputLayout.problem(withPortBase: bus) {
                if mode == .groups, let voice = loaded.voices.first(where: { $0.definition.group == bus }) {
                    throw voice.error("group", "'\(bus)' \(problem)")
                }
                throw loaded.voices[index].error("name", "'\(bus)' \(problem) (with outputs: voices every voice has ports of its own)")
            }
        }
        for voice in loaded.voices where midiVoices.contains(voice.definition.name) {
            if let problem = OutputLayout.problem(withPortBase: voice.definition.name) {
                throw voice.error("name", "'\(voice.definition.name)' \(problem) (with midi_out: voices every voice has a MIDI port)")
            }
        }
    }
}

extension LoadedPreset {
    /// The preset's `outputs:` (default: master).
    func outputsMode() throws -> OutputLayout.Mode {
        guard let word = preset.outputs else { return .master }
        guard let mode = OutputLayout.Mode(rawValue: word) else {
            throw InputError(file: file, line: line("outputs"), field: "outputs", "'\(word)' is not master, voices or groups")
        }
        return mode
    }

    /// The preset's `midi_out:` (default: combined).
    func midiOutMode() throws -> OutputLayout.MIDIMode {
        guard let word = preset.midiOut else { return .combined }
        guard let mode = OutputLayout.MIDIMode(rawValue: word) else {
            throw InputError(file: file, line: line("midi_out"), field: "midi_out", "'\(word)' is not combined or voices")
        }
        return mode
    }
}
