import BodySignals
import Inputs
import Foundation
import Voices
import Yams
import Realtime

/// A preset: the voices, their sounds and how they follow the heart. YAML, decoded with Codable.
///
/// A preset path is a `preset.yaml` file or a folder holding one. `include` names voice files
/// (YAML with a `voices:` list) shared between presets; every sound file is relative to the
/// folder of the file that names it.
public struct Preset: Codable, Sendable {
    public var name: String?
    public var description: String?
    /// The tempo until a sensor says otherwise (`run --bpm` overrides it).
    public var bpm: Double?
    /// The performers whose hearts the voices follow (`heart:` of a voice), each with a clock of
    /// their own; none named: one heart. Their OSC goes under `/performer/<name>/…`; the
    /// unprefixed addresses are the first performer's. An entry is a name, or a mapping with the
    /// performer's own sensors: `{name: alice, heart: "ble:Polar H10 1A2B", eeg: "muse"}`.
    public var performerEntries: [Performer]?
    public var performers: [String]? { performerEntries?.map(\.name) }
    /// The body sensors read over Bluetooth LE (the first performer's, or the one heart's):
    /// `sensors: {heart: "ble", eeg: "muse:Muse-1A2B"}`; `run --heart`/`--eeg` override them.
    public var sensors: Sensors?

    public struct Sensors: Codable, Sendable, Equatable {
        /// `ble[:ADDRESS|NAME]` or `polar-ecg[:ADDRESS|NAME]`.
        public var heart: String?
        /// `muse[:ADDRESS|NAME]`.
        public var eeg: String?
        /// Camera pose for the drum regions: `camera[:/dev/videoN]` or `video:FILE`.
        public var pose: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case heart, eeg, pose }
    }

    /// A performer: a name, and the sensors that are theirs.
    public struct Performer: Codable, Sendable, Equatable {
        public var name: String
        public var heart: String?
        public var eeg: String?

        enum CodingKeys: String, CodingKey { case name, heart, eeg }

        public init(name: String, heart: String? = nil, eeg: String? = nil) {
            self.name = name
            self.heart = heart
            self.eeg = eeg
        }

        public init(from decoder: any Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                self.init(name: name)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(name: try container.decode(String.self, forKey: .name), heart: try container.decodeIfPresent(String.self, forKey: .heart),
                      eeg: try container.decodeIfPresent(String.self, forKey: .eeg))
        }

        public func encode(to encoder: any Encoder) throws {
            if heart == nil && eeg == nil {
                var container = encoder.singleValueContainer()
                try container.encode(name)
            } else {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try container.encodeIfPresent(heart, forKey: .heart)
                try container.encodeIfPresent(eeg, forKey: .eeg)
            }
        }
    }
    /// The ensemble's heart (`heart: ensemble`): its tempo is the performers' mean, median, or a
    /// leader's (default: mean).
    public var ensemble: Ensemble?

    public struct Ensemble: Codable, Sendable {
        /// "mean", "median" or "leader".
        public var tempo: String?
        /// With `tempo: leader`: whose.
        public var leader: String?
    }
    public var include: [String]?
    public var voices: [VoiceDefinition]?
    /// Per-preset switches for voices defined here or included: mute, gain, pan, rate, velocity.
    public var settings: [String: VoiceSettings]?
    /// MIDI control changes on midi_in: controller number → "voice.gain", "voice.pan" or "voice.enable".
    public var midiCC: [Int: String]?
    /// Named regions (drum pads, body regions) and the voice each one plays.
    public var regions: [String: String]?
    /// MIDI notes on midi_in that hit a region: note → region name.
    public var midiRegions: [Int: String]?
    /// The region that records a skipped beat (its voice sounds only while recording).
    public var skipRegion: String?
    /// A voice announcing each mode as it begins: mode name → voice name.
    public var modeSounds: [String: String]?
    /// What happens when the heart data stops.
    public var dropout: Dropout?
    /// Mood ranges, first match wins (default: sad while alpha < 0.5, happy at or above).
    public var moods: [MoodDefinition]?
    /// Seconds of EEG averaged for the mood (default 10).
    public var moodWindow: Double?
    /// How hand positions become region hits: a scale, and [enter, exit] thresholds per direction.
    public var pose: PoseSettings?
    /// Outputs besides the master, for a DAW: "master" (none), "voices" (a stereo port pair per
    /// voice) or "groups" (one per `group:`); `run --outputs` overrides it (`OutputLayout`).
    public var outputs: String?
    /// "combined" (`midi_out` only) or "voices" (a MIDI port per voice as well); `run --midi-out` overrides it.
    public var midiOut: String?
    /// Body signals that shape the sound: each maps a source onto a voice's, a plugin's or the
    /// master's parameter (`ModulationEntry`).
    public var modulations: [ModulationEntry]?
    /// Seconds of RR intervals `heart.rmssd` and `heart.sdnn` are taken over (default 30).
    public var hrvWindow: Double?

    public struct PoseSettings: Codable, Sendable {
        public var scale: Double?
        public var up, down, left, right: [Double]?
    }

    /// The region model the preset describes (Tambour's defaults where it is silent).
    public var regionModel: RegionModel {
        var model = RegionModel()
        if let pose {
            model.scale = PresetFields.poseScale.value(in: self)
            for (direction, pair) in [(RegionModel.Direction.up, pose.up), (.down, pose.down), (.left, pose.left), (.right, pose.right)] {
                if let pair, pair.count == 2 { model.thresholds[direction] = RegionModel.Threshold(enter: pair[0], exit: pair[1]) }
            }
        }
        return model
    }

    public struct MoodDefinition: Codable, Sendable {
        public struct Bounds: Codable, Sendable {
            public var atLeast: Double?
            public var below: Double?
            enum CodingKeys: String, CodingKey { case atLeast = "at_least", below }
        }
        public var mood: String
        public var alpha, beta, delta, theta, gamma: Bounds?
    }

    /// The mood model the preset describes.
    public var moodModel: MoodModel {
        guard let moods else { return MoodModel(window: PresetFields.moodWindow.value(in: self)) }
        let ranges = moods.map { definition in
            var bands: [EEGBand: MoodModel.Bounds] = [:]
            for (band, bounds) in zip(EEGBand.allCases, [definition.alpha, definition.beta, definition.delta, definition.theta, definition.gamma]) {
                if let bounds { bands[band] = MoodModel.Bounds(atLeast: bounds.atLeast, below: bounds.below) }
            }
            return MoodModel.Range(mood: definition.mood, bands: bands)
        }
        return MoodModel(window: PresetFields.moodWindow.value(in: self), ranges: ranges)
    }

    /// The master bus: a gain and an optional safety limiter on the whole mix.
    public struct Master: Codable, Sendable {
        /// Gain of the whole mix in dB, −60…+12 (default 0).
        public var gainDB: Double?
        /// A peak limiter that keeps the output at or below `ceiling_db` (no look-ahead, no latency).
        public var limiter: Bool?
        /// The limiter's ceiling in dBFS, −20…0 (default −1).
        public var ceilingDB: Double?
        /// The limiter's release time constant in ms, 1…2000 (default 50).
        public var releaseMS: Double?
        /// LV2 effects on the whole mix, before the gain and the limiter.
        public var inserts: [Insert]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case gainDB = "gain_db", limiter, ceilingDB = "ceiling_db", releaseMS = "release_ms", inserts
        }
    }

    public var master: Master?

    /// One LV2 effect in a chain (`inserts:` of a voice or of `master:`).
    public struct Insert: Codable, Sendable, Equatable {
        /// The plugin's URI (`pulsejack plugins` lists them).
        public var plugin: String
        /// Control values by port symbol; the rest keep the plugin's defaults.
        public var controls: [String: Double]?
        /// Starts bypassed (the bus passes through unchanged).
        public var bypass: Bool?
        /// A saved state's folder (a session save writes it), relative to the file naming it.
        public var state: String?
        /// Hosted in a process of its own: a crash or a hang there silences this insert (it passes
        /// its input dry) until the process restarts, and nothing else.
        public var isolate: Bool?
        /// One of the plugin's own presets, by name (`pulsejack plugins --presets URI`), loaded
        /// before `controls`.
        public var preset: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case plugin, controls, bypass, state, isolate, preset }

        public init(plugin: String, controls: [String: Double]? = nil, bypass: Bool? = nil, state: String? = nil, isolate: Bool? = nil,
                    preset: String? = nil) {
            self.plugin = plugin
            self.controls = controls
            self.bypass = bypass
            self.state = state
            self.isolate = isolate
            self.preset = preset
        }
    }

    public struct Dropout: Codable, Sendable {
        /// Seconds without heart data before it counts as a dropout.
        public var seconds: Double?
        /// "hold" keeps the last tempo; "fade" fades the heart-driven voices out until data returns.
        public var action: String?
        /// Seconds the fade (and the return) takes, 0.05…60 (default 1).
        public var fadeSeconds: Double?

        enum CodingKeys: String, CodingKey { case seconds, action, fadeSeconds = "fade_seconds" }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, bpm, performerEntries = "performers", sensors, ensemble, include, voices, settings, regions, dropout, moods, master
        case moodWindow = "mood_window", pose, outputs, midiOut = "midi_out", modulations, hrvWindow = "hrv_window"
        case midiCC = "midi_cc", midiRegions = "midi_regions", skipRegion = "skip_region", modeSounds = "mode_sounds"
    }

    public struct VoiceSettings: Codable, Sendable {
        public var mute: Bool?
        public var enabled: Bool?
        public var gain: Float?
        public var pan: Float?
        public var every: Int?
        public var subdivide: Int?
        public var velocity: Float?

        func apply(to voice: inout VoiceDefinition) {
            if let mute { voice.mute = mute }
            if let enabled { voice.enabled = enabled }
            if let gain { voice.gain = gain }
            if let pan { voice.pan = pan }
            if let every { voice.every = every }
            if let subdivide { voice.subdivide = subdivide }
            if let velocity { voice.velocity = velocity }
        }
    }

    /// A voice kind's `kind:` word; `VoiceKinds.all` holds what each one is.
    public struct VoiceKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public init(from decoder: any Decoder) throws {
            let word = try decoder.singleValueContainer().decode(String.self)
            guard VoiceKinds.all.contains(where: { $0.kind.rawValue == word }) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown voice kind '\(word)'"))
            }
            rawValue = word
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var descriptor: any VoiceKindDescriptor { VoiceKinds.descriptor(self)! }
    }
}
