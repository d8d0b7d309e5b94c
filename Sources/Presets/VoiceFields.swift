import Foundation
import Inputs
import Realtime

/// One field every voice has, whatever its kind: its YAML key, where the definition keeps it,
/// the value it takes when a preset leaves it out, and what it accepts — written once.
/// Decoding, encoding, validation, the engine graph and the `voices` listing read `VoiceFields`.
public struct CommonVoiceField<Value: Codable & Sendable>: Sendable {
    public let key: String
    private let path: WritableKeyPath<Preset.VoiceDefinition, Value?> & Sendable
    /// The value a voice has when its preset leaves the field out (nil: none).
    public let defaultValue: Value?
    /// Why a given value is refused, or nil.
    private let refusal: @Sendable (Value) -> String?

    init(_ key: String, _ path: WritableKeyPath<Preset.VoiceDefinition, Value?> & Sendable, default defaultValue: Value? = nil,
         refusing refusal: @escaping @Sendable (Value) -> String? = { _ in nil }) {
        self.key = key
        self.path = path
        self.defaultValue = defaultValue
        self.refusal = refusal
    }

    /// What `voice` gives, if it gives it.
    public func given(in voice: Preset.VoiceDefinition) -> Value? { voice[keyPath: path] }

    /// What `voice` gives, else the default (a field with one).
    public func value(in voice: Preset.VoiceDefinition) -> Value { voice[keyPath: path] ?? defaultValue! }

    /// Why `voice`'s value is refused, or nil (also when it gives none).
    func problem(in voice: Preset.VoiceDefinition) -> String? { given(in: voice).flatMap(refusal) }

    /// The field as the table lists it, whatever its type.
    var entry: VoiceFields.Entry {
        VoiceFields.Entry(key: key, decode: { voice, container in
            voice[keyPath: path] = try container.decodeIfPresent(Value.self, forKey: .init(stringValue: key))
        }, encode: { voice, container in
            try container.encodeIfPresent(voice[keyPath: path], forKey: .init(stringValue: key))
        }, problem: problem(in:))
    }
}

extension CommonVoiceField where Value: Comparable {
    /// A number in `range` ("20 is outside 1…16").
    init(_ key: String, _ path: WritableKeyPath<Preset.VoiceDefinition, Value?> & Sendable, default defaultValue: Value? = nil,
         range: ClosedRange<Value>) {
        self.init(key, path, default: defaultValue) { value in
            range.contains(value) ? nil : "\(value) is outside \(range.lowerBound)…\(range.upperBound)"
        }
    }
}

extension CommonVoiceField where Value == Float {
    /// A level in `range`, as the voice parameters' ranges give it ("5.0 is outside 0…4").
    init(_ key: String, _ path: WritableKeyPath<Preset.VoiceDefinition, Float?> & Sendable, default defaultValue: Float,
         levels range: ClosedRange<Double>) {
        self.init(key, path, default: defaultValue) { value in
            if !value.isFinite { return "\(value) is not a number" }
            return range.contains(Double(value)) ? nil : "\(value) is outside \(range.lowerBound.plainText)…\(range.upperBound.plainText)"
        }
    }
}

/// The table of the fields every voice has, in the order a preset is written.
public enum VoiceFields {
    public static let gain = CommonVoiceField("gain", \.gain, default: 1, levels: VoiceParameterRange.gain)
    public static let pan = CommonVoiceField("pan", \.pan, default: 0, levels: VoiceParameterRange.pan)
    public static let every = CommonVoiceField("every", \.every, default: 1, range: VoiceParameterRange.every)
    public static let subdivide = CommonVoiceField("subdivide", \.subdivide, default: 1) { subdivide in
        VoiceParameterRange.subdivisions.contains(subdivide)
            ? nil : "\(subdivide) is not \(VoiceField.orList(VoiceParameterRange.subdivisions.map(String.init)))"
    }
    public static let enabled = CommonVoiceField("enabled", \.enabled, default: true)
    public static let mute = CommonVoiceField("mute", \.mute, default: false)
    public static let velocity = CommonVoiceField("velocity", \.velocity, default: 1, levels: VoiceParameterRange.velocity)
    /// 0: in no choke group.
    public static let choke = CommonVoiceField("choke", \.choke, default: 0, range: VoiceParameterRange.chokeGroup)
    public static let onBeat = CommonVoiceField("on_beat", \.onBeat, default: true)
    public static let midiNote = CommonVoiceField("midi_note", \.midiNote, range: VoiceParameterRange.midiNote)
    /// No default of its own: `midi_note`, else 36 + the voice's index (`Preset.VoiceDefinition.midiOutKey`).
    public static let midiOutNote = CommonVoiceField("midi_out_note", \.midiOutNote, range: VoiceParameterRange.midiNote)
    public static let midiOutChannel = CommonVoiceField("midi_out_channel", \.midiOutChannel, default: 1,
                                                        range: VoiceParameterRange.midiChannel)
    public static let midiOutLength = CommonVoiceField("midi_out_length", \.midiOutLength, default: 0.1,
                                                       range: VoiceParameterRange.midiOutLength)
    public static let inserts = CommonVoiceField("inserts", \.inserts)
    public static let heart = CommonVoiceField("heart", \.heart)
    public static let together = CommonVoiceField("together", \.together)
    public static let windowMS = CommonVoiceField("window_ms", \.windowMS, default: 30) { window in
        window.isFinite && (1...1000).contains(window) ? nil : "\(window) is outside 1…1000 ms"
    }
    public static let group = CommonVoiceField("group", \.group) { group in
        group.isEmpty || group == "master" || group.contains(where: { $0.isWhitespace || $0 == "/" })
            ? "'\(group)' is not a group name (no spaces or '/'; 'master' is the master's own)" : nil
    }

    static let all: [Entry] = [
        gain.entry, pan.entry, every.entry, subdivide.entry, enabled.entry, mute.entry, velocity.entry, choke.entry, onBeat.entry,
        midiNote.entry, midiOutNote.entry, midiOutChannel.entry, midiOutLength.entry, inserts.entry, heart.entry, together.entry,
        windowMS.entry, group.entry,
    ]

    /// A field of the table, whatever its type.
    struct Entry: Sendable {
        let key: String
        let decode: @Sendable (inout Preset.VoiceDefinition, KeyedDecodingContainer<Preset.VoiceDefinition.AnyKey>) throws -> Void
        let encode: @Sendable (Preset.VoiceDefinition, inout KeyedEncodingContainer<Preset.VoiceDefinition.AnyKey>) throws -> Void
        let problem: @Sendable (Preset.VoiceDefinition) -> String?
    }
}
