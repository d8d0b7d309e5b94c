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

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, kind, gain, pan, every, subdivide, enabled, mute, velocity, choke
            case onBeat = "on_beat", midiNote = "midi_note", midiOutNote = "midi_out_note", midiOutChannel = "midi_out_channel"
            case midiOutLength = "midi_out_length", inserts, heart, together, windowMS = "window_ms", group
        }

        /// The keys every voice may have, whatever its kind.
        public static var commonKeys: [String] { CodingKeys.allCases.map(\.rawValue) }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            kind = try container.decode(VoiceKind.self, forKey: .kind)
            gain = try container.decodeIfPresent(Float.self, forKey: .gain)
            pan = try container.decodeIfPresent(Float.self, forKey: .pan)
            every = try container.decodeIfPresent(Int.self, forKey: .every)
            subdivide = try container.decodeIfPresent(Int.self, forKey: .subdivide)
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
            mute = try container.decodeIfPresent(Bool.self, forKey: .mute)
            velocity = try container.decodeIfPresent(Float.self, forKey: .velocity)
            choke = try container.decodeIfPresent(Int.self, forKey: .choke)
            onBeat = try container.decodeIfPresent(Bool.self, forKey: .onBeat)
            midiNote = try container.decodeIfPresent(Int.self, forKey: .midiNote)
            midiOutNote = try container.decodeIfPresent(Int.self, forKey: .midiOutNote)
            midiOutChannel = try container.decodeIfPresent(Int.self, forKey: .midiOutChannel)
            midiOutLength = try container.decodeIfPresent(Double.self, forKey: .midiOutLength)
            inserts = try container.decodeIfPresent([Insert].self, forKey: .inserts)
            heart = try container.decodeIfPresent(String.self, forKey: .heart)
            together = try container.decodeIfPresent([String].self, forKey: .together)
            windowMS = try container.decodeIfPresent(Double.self, forKey: .windowMS)
            group = try container.decodeIfPresent(String.self, forKey: .group)
            // A field of another kind decodes by that kind's type; validation then refuses it by name.
            let all = try decoder.container(keyedBy: AnyKey.self)
            for key in all.allKeys where CodingKeys(rawValue: key.stringValue) == nil {
                guard let field = kind.descriptor.field(key.stringValue) ?? VoiceKinds.anyField(key.stringValue) else { continue }
                options[key.stringValue] = try field.decode(from: all, key: key)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(kind, forKey: .kind)
            try container.encodeIfPresent(gain, forKey: .gain)
            try container.encodeIfPresent(pan, forKey: .pan)
            try container.encodeIfPresent(every, forKey: .every)
            try container.encodeIfPresent(subdivide, forKey: .subdivide)
            try container.encodeIfPresent(enabled, forKey: .enabled)
            try container.encodeIfPresent(mute, forKey: .mute)
            try container.encodeIfPresent(velocity, forKey: .velocity)
            try container.encodeIfPresent(choke, forKey: .choke)
            try container.encodeIfPresent(onBeat, forKey: .onBeat)
            try container.encodeIfPresent(midiNote, forKey: .midiNote)
            try container.encodeIfPresent(midiOutNote, forKey: .midiOutNote)
            try container.encodeIfPresent(midiOutChannel, forKey: .midiOutChannel)
            try container.encodeIfPresent(midiOutLength, forKey: .midiOutLength)
            try container.encodeIfPresent(inserts, forKey: .inserts)
            try container.encodeIfPresent(heart, forKey: .heart)
            try container.encodeIfPresent(together, forKey: .together)
            try container.encodeIfPresent(windowMS, forKey: .windowMS)
            try container.encodeIfPresent(group, forKey: .group)
            var all = encoder.container(keyedBy: AnyKey.self)
            for key in options.keys.sorted() { try all.encode(options[key]!, forKey: AnyKey(stringValue: key)) }
        }

        public var rate: BeatRate {
            BeatRate(everyNthBeat: UInt8(clamping: every ?? 1), subdivision: UInt8(clamping: subdivide ?? 1))
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
