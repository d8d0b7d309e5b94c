import Foundation
import Inputs

/// What `pulsejack voices` lists: a preset's voices with their settings as they play (the
/// defaults filled in), or every voice kind with its fields. Encodable for `--json`.
public enum VoiceListing {
    public struct Kind: Encodable, Sendable {
        public struct Field: Encodable, Sendable {
            public var key: String
            public var value: String
            public var `default`: String?
            public var help: String
        }
        public var kind: String
        public var summary: String
        public var fields: [Field]
    }

    public struct Voice: Encodable, Sendable {
        public var name: String
        public var kind: String
        public var files: [String]
        public var gain: Float
        public var pan: Float
        public var rate: Rate
        public var enabled: Bool
        public var onBeat: Bool
        public var midiNote: Int?
        /// Its output group (`outputs: groups`).
        public var group: String?
        public var definedIn: String

        public struct Rate: Encodable, Sendable {
            public var every: Int
            public var subdivide: Int
        }

        enum CodingKeys: String, CodingKey {
            case name, kind, files, gain, pan, rate, enabled, group
            case onBeat = "on_beat"
            case midiNote = "midi_note"
            case definedIn = "defined_in"
        }
    }

    /// Every voice kind and its own fields.
    public static func kinds() -> [Kind] {
        VoiceKinds.all.map { descriptor in
            Kind(kind: descriptor.kind.rawValue, summary: descriptor.summary, fields: descriptor.fields.map {
                .init(key: $0.key, value: $0.valueDescription, default: $0.defaultValue, help: $0.help)
            })
        }
    }

    /// The preset's voices as they play.
    public static func voices(of loaded: LoadedPreset) -> [Voice] {
        loaded.voices.map { loadedVoice in
            let voice = loadedVoice.definition
            let rate = voice.rate
            return Voice(name: voice.name, kind: voice.kind.rawValue, files: loadedVoice.sounds.map(\.path),
                         gain: VoiceFields.gain.value(in: voice), pan: VoiceFields.pan.value(in: voice),
                         rate: .init(every: Int(rate.everyNthBeat), subdivide: Int(rate.subdivision)),
                         enabled: voice.startsEnabled, onBeat: VoiceFields.onBeat.value(in: voice),
                         midiNote: voice.midiNote, group: voice.group, definedIn: loadedVoice.file)
        }
    }

    /// `pulsejack voices` as text: one line a voice (name, kind, gain, pan, rate, off, group, files).
    public static func text(_ voices: [Voice]) -> [String] {
        voices.map { voice in
            let rate = "every \(voice.rate.every) × \(voice.rate.subdivide)"
            return "\(voice.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(voice.kind.padding(toLength: 11, withPad: " ", startingAt: 0)) "
                + "gain \(voice.gain) pan \(voice.pan) \(rate)\(voice.enabled ? "" : " (off)")\(voice.group.map { " [\($0)]" } ?? "") "
                + voice.files.joined(separator: " ")
        }
    }

    /// `pulsejack voices --kinds` as text: what every voice has, then each kind and its fields.
    public static func text(_ kinds: [Kind]) -> [String] {
        var lines = ["Every voice has: \(Preset.VoiceDefinition.commonKeys.joined(separator: ", "))"]
        for kind in kinds {
            lines.append("\n\(kind.kind): \(kind.summary)")
            for field in kind.fields {
                let fallback = field.default.map { " (default \($0))" } ?? ""
                lines.append("  \(field.key.padding(toLength: 16, withPad: " ", startingAt: 0)) \(field.value)\(fallback): \(field.help)")
            }
        }
        return lines
    }
}
