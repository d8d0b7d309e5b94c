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

    package init(mode: Mode, midi: MIDIMode, buses: [String], voiceBus: [Int32], midiVoices: [String]) {
        self.mode = mode
        self.midi = midi
        self.buses = buses
        self.voiceBus = voiceBus
        self.midiVoices = midiVoices
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

    /// Why `<base>_L`/`<base>_R`/`<base>_midi` cannot be port names of ours, or nil. JACK splits a
    /// full port name at ':'; `out_L` and `in_L` are the master's and the input's.
    package static func problem(withPortBase base: String) -> String? {
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
