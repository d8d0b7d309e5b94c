import Inputs
import Foundation
import Voices
import Yams
import Realtime

extension Preset {
    /// A voice: the fields every voice has, typed here, and the fields of its kind (`options`),
    /// typed by its descriptor.
    public struct VoiceDefinition: Codable, Sendable {
        public var name: String
        public var kind: VoiceKind
        public var gain: Float?
        public var pan: Float?
        /// Fire on every Nth beat, 1…16.
        public var every: Int?
        /// Pulses per fired beat: 1, 2, 3 or 4.
        public var subdivide: Int?
        public var enabled: Bool?
        /// Starts muted (enable it at run time with a voice parameter).
        public var mute: Bool?
        /// Velocity of the notes the heartbeat fires, 0…1.
        public var velocity: Float?
        /// Firing this voice chokes the other voices of the same group, 1…16.
        public var choke: Int?
        /// Whether the heartbeat fires it (false: only triggers, MIDI notes and regions do).
        public var onBeat: Bool?
        /// A MIDI note (0…127) on the MIDI input that triggers it.
        public var midiNote: Int?
        /// The note it sends on midi_out each time it fires (default: midi_note, else 36 + its index).
        public var midiOutNote: Int?
        /// The MIDI channel of that note, 1…16 (default 1).
        public var midiOutChannel: Int?
        /// Seconds from that note's note-on to its note-off (default 0.1).
        public var midiOutLength: Double?
        /// LV2 effects on this voice's bus, in order.
        public var inserts: [Insert]?
        /// Whose heart it follows: one of the preset's `performers`, or `ensemble` (default: the first).
        public var heart: String?
        /// Fires when these two performers' beats fall within `window_ms` of each other (at the
        /// second of the two), instead of on a heart's beats.
        public var together: [String]?
        /// The window for `together`, in ms, 1…1000 (default 30).
        public var windowMS: Double?
        /// The output group it joins with `outputs: groups` (a port pair per group).
        public var group: String?
        /// The fields of this voice's kind, by YAML key (see its descriptor).
        public var options: [String: VoiceOption] = [:]

        public init(name: String, kind: VoiceKind, options: [String: VoiceOption] = [:]) {
            self.name = name
            self.kind = kind
            self.options = options
        }

        public func option(_ key: String) -> VoiceOption? { options[key] }

        /// The keys every voice may have, whatever its kind.
        public static var commonKeys: [String] { ["name", "kind"] + VoiceFields.all.map(\.key) }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            name = try container.decode(String.self, forKey: AnyKey(stringValue: "name"))
            kind = try container.decode(VoiceKind.self, forKey: AnyKey(stringValue: "kind"))
            for field in VoiceFields.all { try field.decode(&self, container) }
            // A field of another kind decodes by that kind's type; validation then refuses it by name.
            let common = Set(Self.commonKeys)
            for key in container.allKeys where !common.contains(key.stringValue) {
                guard let field = kind.descriptor.field(key.stringValue) ?? VoiceKinds.anyField(key.stringValue) else { continue }
                options[key.stringValue] = try field.decode(from: container, key: key)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(name, forKey: AnyKey(stringValue: "name"))
            try container.encode(kind, forKey: AnyKey(stringValue: "kind"))
            for field in VoiceFields.all { try field.encode(self, &container) }
            for key in options.keys.sorted() { try container.encode(options[key]!, forKey: AnyKey(stringValue: key)) }
        }

        /// Whether it sounds when the preset starts: enabled and not muted.
        public var startsEnabled: Bool { VoiceFields.enabled.value(in: self) && !VoiceFields.mute.value(in: self) }

        /// The note it sends on midi_out: `midi_out_note`, else `midi_note`, else 36 + its index.
        public func midiOutKey(index: Int) -> Int {
            VoiceFields.midiOutNote.given(in: self) ?? VoiceFields.midiNote.given(in: self) ?? min(36 + index, 127)
        }

        public var rate: BeatRate {
            BeatRate(everyNthBeat: UInt8(clamping: VoiceFields.every.value(in: self)),
                     subdivision: UInt8(clamping: VoiceFields.subdivide.value(in: self)))
        }

        /// Sound files by role, as written (relative to the defining file's folder), in the
        /// order the kind's descriptor lists them.
        public var soundFields: [(field: String, file: String)] {
            kind.descriptor.fields.compactMap { field in
                guard case .sound = field.value, let file = options[field.key]?.text else { return nil }
                return (field.key, file)
            }
        }
    }
}
