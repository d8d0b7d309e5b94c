import Inputs
import Foundation

/// Where the voices go besides the master, for a DAW: `outputs: master | voices | groups` (a
/// stereo bus per voice, or per `group:`) and `midi_out: combined | voices` (a MIDI port per
/// voice besides `midi_out`). The buses are the live run's extra JACK ports (`<bus>_L`, `<bus>_R`,
/// `<voice>_midi`) and a render's stems. Control thread.
public struct OutputLayout: Sendable, Equatable {
    public enum Mode: String, CaseIterable, Sendable {
        /// `out_L`/`out_R` only.
        case master
        /// A stereo bus per voice.
        case voices
        /// A stereo bus per `group:`; voices without one are on the master only.
        case groups
    }

    public enum MIDIMode: String, CaseIterable, Sendable {
        /// `midi_out` only.
        case combined
        /// A MIDI port per voice besides `midi_out`.
        case voices
    }

    public let mode: Mode
    public let midi: MIDIMode
    /// The buses with an output of their own, in preset order: voice names, or group names.
    public let buses: [String]
    /// Per voice, in the engine's order: its bus's index in `buses`, or −1 (the master only).
    public let voiceBus: [Int32]
    /// The voices with a MIDI port of their own (all of them with `midi: .voices`), in order.
    public let midiVoices: [String]

    /// Only `out_L`/`out_R` and `midi_out`: what a run without `outputs:` registers.
    public static let masterOnly = OutputLayout(mode: .master, midi: .combined, buses: [], voiceBus: [], midiVoices: [])

    private init(mode: Mode, midi: MIDIMode, buses: [String], voiceBus: [Int32], midiVoices: [String]) {
        self.mode = mode
        self.midi = midi
        self.buses = buses
        self.voiceBus = voiceBus
        self.midiVoices = midiVoices
    }

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

    /// A bus and a MIDI port per voice of `names` (an engine built without a preset: tests, benchmarks).
    public static func perVoice(_ names: [String]) -> OutputLayout {
        OutputLayout(mode: .voices, midi: .voices, buses: names, voiceBus: names.indices.map(Int32.init), midiVoices: names)
    }

    /// Buses of `names`, voice `i` on bus `voiceBus[i]` (−1: the master only), an engine built
    /// without a preset: tests, benchmarks.
    public static func groups(_ names: [String], voiceBus: [Int32]) -> OutputLayout {
        OutputLayout(mode: .groups, midi: .combined, buses: names, voiceBus: voiceBus, midiVoices: [])
    }

    /// `namesPorts`: the buses become JACK ports, whose names have rules of their own.
    private init(preset loaded: LoadedPreset, mode asked: Mode?, midi askedMIDI: MIDIMode?, namesPorts: Bool, option: String? = nil) throws {
        let names = loaded.voices.map(\.definition.name)
        mode = try asked ?? loaded.outputsMode()
        midi = try askedMIDI ?? loaded.midiOutMode()
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
        midiVoices = midi == .voices ? names : []
        guard namesPorts else { return }
        for (index, bus) in buses.enumerated() {
            if let problem = Self.problem(withPortBase: bus) {
                if mode == .groups, let voice = loaded.voices.first(where: { $0.definition.group == bus }) {
                    throw voice.error("group", "'\(bus)' \(problem)")
                }
                throw loaded.voices[index].error("name", "'\(bus)' \(problem) (with outputs: voices every voice has ports of its own)")
            }
        }
        for voice in loaded.voices where midiVoices.contains(voice.definition.name) {
            if let problem = Self.problem(withPortBase: voice.definition.name) {
                throw voice.error("name", "'\(voice.definition.name)' \(problem) (with midi_out: voices every voice has a MIDI port)")
            }
        }
    }

    /// Why `<base>_L`/`<base>_R`/`<base>_midi` cannot be port names of ours, or nil. JACK splits a
    /// full port name at ':'; `out_L` and `in_L` are the master's and the input's.
    static func problem(withPortBase base: String) -> String? {
        if base.contains(":") { return "cannot name a JACK port (':' separates client and port)" }
        if ["out", "in"].contains(base) { return "would give ports named like the master's or the input's (\(base)_L, \(base)_R)" }
        if base.utf8.count > Self.longestBase { return "is longer than \(Self.longestBase) bytes, too long for a JACK port name" }
        return nil
    }

    /// The longest bus or voice name that still makes a JACK port name (JACK's short names hold
    /// 255 bytes; a client name can take 63 of a full name's 320).
    static let longestBase = 200

    /// Whether the layout adds any port.
    public var addsPorts: Bool { !buses.isEmpty || !midiVoices.isEmpty }

    /// The stereo ports of each bus, in bus order: (name, pretty name) for left, then right.
    public var audioPorts: [(name: String, pretty: String)] {
        let kind = mode == .groups ? "Group" : "Voice"
        return buses.flatMap { bus in [("\(bus)_L", "\(kind) \(bus) Left"), ("\(bus)_R", "\(kind) \(bus) Right")] }
    }

    /// Each voice's own MIDI port, in voice order: (name, pretty name).
    public var midiPorts: [(name: String, pretty: String)] {
        midiVoices.map { ("\($0)_midi", "MIDI Out \($0)") }
    }

    /// Per voice: its MIDI port's index in `midiPorts`, or −1.
    public var voiceMIDIPort: [Int32] {
        midi == .voices ? voiceBus.indices.map(Int32.init) : voiceBus.map { _ in -1 }
    }

    /// One line for the start message: what the DAW sees besides `out_L`/`out_R` and `midi_out`.
    public var summary: String? {
        var parts: [String] = []
        if !buses.isEmpty {
            parts.append("\(buses.count) \(mode == .groups ? "group" : "voice") port pair\(buses.count == 1 ? "" : "s") ("
                         + buses.prefix(4).map { "\($0)_L/\($0)_R" }.joined(separator: ", ") + (buses.count > 4 ? ", …" : "") + ")")
        }
        if !midiVoices.isEmpty {
            parts.append("\(midiVoices.count) voice MIDI port\(midiVoices.count == 1 ? "" : "s") ("
                         + midiVoices.prefix(4).map { "\($0)_midi" }.joined(separator: ", ") + (midiVoices.count > 4 ? ", …" : "") + ")")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
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
