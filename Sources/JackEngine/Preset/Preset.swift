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
    /// unprefixed addresses are the first performer's.
    public var performers: [String]?
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

    public struct PoseSettings: Codable, Sendable {
        public var scale: Double?
        public var up, down, left, right: [Double]?
    }

    /// The region model the preset describes (Tambour's defaults where it is silent).
    public var regionModel: RegionModel {
        var model = RegionModel()
        if let pose {
            if let scale = pose.scale { model.scale = scale }
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
        guard let moods else { return MoodModel(window: moodWindow ?? 10) }
        let ranges = moods.map { definition in
            var bands: [EEGBand: MoodModel.Bounds] = [:]
            for (band, bounds) in zip(EEGBand.allCases, [definition.alpha, definition.beta, definition.delta, definition.theta, definition.gamma]) {
                if let bounds { bands[band] = MoodModel.Bounds(atLeast: bounds.atLeast, below: bounds.below) }
            }
            return MoodModel.Range(mood: definition.mood, bands: bands)
        }
        return MoodModel(window: moodWindow ?? 10, ranges: ranges)
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

        public init(plugin: String, controls: [String: Double]? = nil, bypass: Bool? = nil, state: String? = nil) {
            self.plugin = plugin
            self.controls = controls
            self.bypass = bypass
            self.state = state
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
        case name, description, bpm, performers, ensemble, include, voices, settings, regions, dropout, moods, master
        case moodWindow = "mood_window", pose, outputs, midiOut = "midi_out"
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

/// One voice as loaded: its definition, the file that defined it and where.
public struct LoadedVoice: Sendable {
    public var definition: Preset.VoiceDefinition
    /// The YAML file that defines it, and its path in that file ("voices[2]").
    public var file: String
    public var path: String
    let lines: [String: Int]

    public var folder: String { (file as NSString).deletingLastPathComponent }

    /// Absolute path of a sound named in this voice.
    public func soundPath(_ name: String) -> String { LoadedPreset.resolve(name, in: folder) }

    /// The absolute path of the voice's track library, if it has one.
    public var libraryPath: String? { definition.option("library")?.text.map(soundPath) }

    /// Every sound file the voice uses, absolute, with the field naming it.
    public var sounds: [(field: String, path: String)] {
        definition.soundFields.map { ($0.field, soundPath($0.file)) }
    }

    /// An error about `field` of this voice, naming its file and line.
    public func error(_ field: String?, _ message: String) -> InputError {
        let place = field.map { "\(path).\($0)" } ?? path
        return InputError(file: file, line: lines[place] ?? lines[path], field: place, message)
    }
}

/// A preset read from disk, its included voice files resolved, every voice validated.
public struct LoadedPreset: Sendable {
    public var preset: Preset
    /// The preset file's absolute path.
    public var file: String
    public var voices: [LoadedVoice]
    let lines: [String: Int]

    public var folder: String { (file as NSString).deletingLastPathComponent }

    func line(_ path: String) -> Int? { lines[path] }

    /// `path` as written in a file in `folder`: absolute as it is, else relative to the folder.
    static func resolve(_ path: String, in folder: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: folder).appendingPathComponent(path).standardizedFileURL.path
    }

    /// Control thread. Reads and validates the preset at `path` (a file or a folder).
    public static func load(path: String) throws -> LoadedPreset {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw InputError(file: path, "no such preset (give a preset.yaml file or a folder holding one)")
        }
        var file = path
        if isFolder.boolValue {
            file = URL(fileURLWithPath: path).appendingPathComponent("preset.yaml").path
            guard FileManager.default.fileExists(atPath: file) else {
                throw InputError(file: path, "this preset folder has no preset.yaml")
            }
        }
        file = URL(fileURLWithPath: file).standardizedFileURL.path
        let (preset, lines) = try YAMLFile.decode(Preset.self, file: file, rootKeys: Preset.CodingKeys.allCases.map(\.rawValue))
        var voices = (preset.voices ?? []).enumerated().map { index, voice in
            LoadedVoice(definition: voice, file: file, path: "voices[\(index)]", lines: lines)
        }
        let folder = (file as NSString).deletingLastPathComponent
        for (index, include) in (preset.include ?? []).enumerated() {
            let included = LoadedPreset.resolve(include, in: folder)
            guard FileManager.default.fileExists(atPath: included) else {
                throw InputError(file: file, line: lines["include[\(index)]"] ?? lines["include"], field: "include[\(index)]",
                                 "voice file not found: \(included)")
            }
            struct VoiceFile: Codable { var voices: [Preset.VoiceDefinition] }
            let (shared, sharedLines) = try YAMLFile.decode(VoiceFile.self, file: included, rootKeys: ["voices"])
            voices += shared.voices.enumerated().map { index, voice in
                LoadedVoice(definition: voice, file: included, path: "voices[\(index)]", lines: sharedLines)
            }
        }
        for (name, settings) in preset.settings ?? [:] {
            guard let index = voices.firstIndex(where: { $0.definition.name == name }) else {
                throw InputError(file: file, line: lines["settings.\(name)"] ?? lines["settings"], field: "settings.\(name)",
                                 "no voice named '\(name)' in this preset or its includes")
            }
            settings.apply(to: &voices[index].definition)
        }
        let loaded = LoadedPreset(preset: preset, file: file, voices: voices, lines: lines)
        try loaded.validate()
        _ = try loaded.controlChanges()
        _ = try loaded.regionNotes()
        _ = try loaded.performanceSettings()
        _ = try OutputLayout(preset: loaded)
        if let pose = preset.pose {
            if let scale = pose.scale, !(scale.isFinite && scale > 0 && scale <= 100) {
                throw InputError(file: file, line: lines["pose"], field: "pose.scale", "\(scale) is not a scale in (0, 100]")
            }
            // Enter must lie beyond exit in the direction's sense, or jitter would retrigger.
            for (name, pair, beyondIsGreater) in [("up", pose.up, true), ("down", pose.down, false), ("left", pose.left, false),
                                                  ("right", pose.right, true)] {
                guard let pair else { continue }
                guard pair.count == 2, pair.allSatisfy(\.isFinite), beyondIsGreater ? pair[0] > pair[1] : pair[0] < pair[1] else {
                    throw InputError(file: file, line: lines["pose"], field: "pose.\(name)",
                                     "\(pair) is not [enter, exit] with enter beyond exit (hysteresis)")
                }
            }
        }
        if let window = preset.moodWindow, !(window.isFinite && (0.5...600).contains(window)) {
            throw InputError(file: file, line: lines["mood_window"], field: "mood_window", "\(window) is outside 0.5…600 s")
        }
        for (index, mood) in (preset.moods ?? []).enumerated() {
            let bounds = [mood.alpha, mood.beta, mood.delta, mood.theta, mood.gamma].compactMap { $0 }
            if mood.mood.isEmpty || bounds.isEmpty || bounds.contains(where: { $0.atLeast == nil && $0.below == nil }) {
                throw InputError(file: file, line: lines["moods[\(index)]"] ?? lines["moods"], field: "moods[\(index)]",
                                 "a mood needs a name and at least one band with at_least or below")
            }
        }
        if let master = preset.master {
            func check(_ value: Double?, _ field: String, _ range: ClosedRange<Double>, _ unit: String) throws {
                guard let value, !(value.isFinite && range.contains(value)) else { return }
                throw InputError(file: file, line: lines["master.\(field)"] ?? lines["master"], field: "master.\(field)",
                                 "\(value) is outside \(range.lowerBound)…\(range.upperBound) \(unit)")
            }
            try check(master.gainDB, "gain_db", -60...12, "dB")
            try check(master.ceilingDB, "ceiling_db", -20...0, "dBFS")
            try check(master.releaseMS, "release_ms", 1...2000, "ms")
        }
        if let dropout = preset.dropout {
            if let seconds = dropout.seconds, !(seconds.isFinite && (0.5...600).contains(seconds)) {
                throw InputError(file: file, line: lines["dropout"], field: "dropout.seconds", "\(seconds) is outside 0.5…600")
            }
            if let fade = dropout.fadeSeconds, !(fade.isFinite && (0.05...60).contains(fade)) {
                throw InputError(file: file, line: lines["dropout"], field: "dropout.fade_seconds", "\(fade) is outside 0.05…60")
            }
            if let action = dropout.action, !["hold", "fade"].contains(action) {
                throw InputError(file: file, line: lines["dropout"], field: "dropout.action", "'\(action)' is not hold or fade")
            }
        }
        return loaded
    }

    /// Region names in index order (sorted), and what each plays: a voice, or for a region
    /// whose target is "mode", the mode cycle.
    public func regionTable() throws -> (names: [String], targets: [RegionTarget]) {
        let names = (preset.regions ?? [:]).keys.sorted()
        let targets = try names.map { name -> RegionTarget in
            let voice = preset.regions![name]!
            if voice == "mode" { return .modeCycle }
            guard let index = self.voices.firstIndex(where: { $0.definition.name == voice }) else {
                throw InputError(file: file, line: line("regions.\(name)") ?? line("regions"), field: "regions.\(name)",
                                 "no voice named '\(voice)'")
            }
            return .voice(Int32(index))
        }
        return (names, targets)
    }

    /// The skipped-beat region's index, and each mode's announcing voice index.
    public func performanceSettings() throws -> (skipRegion: Int32?, modeVoices: [PerformanceMode: Int32]) {
        let names = try regionTable().names
        var skip: Int32?
        if let name = preset.skipRegion {
            guard let index = names.firstIndex(of: name) else {
                throw InputError(file: file, line: line("skip_region"), field: "skip_region", "'\(name)' is not one of regions")
            }
            skip = Int32(index)
        }
        var modeVoices: [PerformanceMode: Int32] = [:]
        for (modeName, voiceName) in preset.modeSounds ?? [:] {
            guard let mode = PerformanceMode.allCases.first(where: { "\($0)" == modeName }),
                  let voice = voices.firstIndex(where: { $0.definition.name == voiceName }) else {
                throw InputError(file: file, line: line("mode_sounds"), field: "mode_sounds.\(modeName)",
                                 "needs a mode (freestyle, recording, playing) and a voice of this preset")
            }
            modeVoices[mode] = Int32(voice)
        }
        return (skip, modeVoices)
    }

    /// MIDI notes that hit regions, as (note, region index).
    public func regionNotes() throws -> [(note: Int, region: Int32)] {
        let names = try regionTable().names
        return try (preset.midiRegions ?? [:]).sorted { $0.key < $1.key }.map { note, region in
            let field = "midi_regions.\(note)"
            guard (0...127).contains(note), let index = names.firstIndex(of: region) else {
                throw InputError(file: file, line: line(field) ?? line("midi_regions"), field: field,
                                 "note \(note) → '\(region)': a note is 0…127 and the region must be one of regions (\(names.joined(separator: ", ")))")
            }
            return (note, Int32(index))
        }
    }

    /// The dropout rule: seconds, and whether heart-driven voices fade.
    public var dropoutRule: (seconds: Double, fades: Bool) {
        (preset.dropout?.seconds ?? 5, preset.dropout?.action == "fade")
    }

    /// The MIDI CC map as (controller, voice index, parameter), validated.
    /// What a `midi_cc` controller moves: a voice's gain, pan or enable, or a control of an LV2
    /// insert ("piano.insert.1.gain", "master.insert.2.bypass"; inserts counted from 1), whose
    /// symbol the engine graph resolves once the plugin is loaded.
    public enum ControlTarget: Equatable {
        case voice(Int, MIDIControl)
        /// An OSC-style route key ("voice/piano/insert/1/gain").
        case insert(route: String)
    }

    public func controlChanges() throws -> [(controller: Int, target: ControlTarget, place: InputError)] {
        try (preset.midiCC ?? [:]).sorted { $0.key < $1.key }.map { controller, target in
            let field = "midi_cc.\(controller)"
            let place = InputError(file: file, line: line(field) ?? line("midi_cc"), field: field, "")
            func fail(_ message: String) -> InputError {
                var error = place
                error.message = message
                return error
            }
            guard (0...127).contains(controller) else { throw fail("a controller number is 0…127") }
            let parts = target.split(separator: ".").map(String.init)
            if parts.count == 4, parts[1] == "insert", let number = Int(parts[2]) {
                let inserts = parts[0] == "master" ? preset.master?.inserts
                    : voices.first { $0.definition.name == parts[0] }?.definition.inserts
                guard let inserts, (1...inserts.count).contains(number) else {
                    throw fail("'\(target)': \(parts[0]) has no insert \(number)")
                }
                let chain = parts[0] == "master" ? "master" : "voice/\(parts[0])"
                return (controller, .insert(route: "\(chain)/insert/\(number)/\(parts[3])"), place)
            }
            guard parts.count == 2, let voice = voices.firstIndex(where: { $0.definition.name == parts[0] }),
                  let parameter = MIDIControl(rawValue: parts[1]) else {
                throw fail("'\(target)' is not voice.gain, voice.pan, voice.enable or voice.insert.N.symbol for a voice of this preset")
            }
            return (controller, .voice(voice, parameter), place)
        }
    }

    private func validate() throws {
        if let bpm = preset.bpm, !HeartbeatClock.accepts(bpm: bpm) {
            throw InputError(file: file, line: line("bpm"), field: "bpm", "\(bpm) is not a heart rate (above 0, at most 300)")
        }
        if voices.isEmpty {
            throw InputError(file: file, line: line("voices"), field: "voices", "a preset needs at least one voice")
        }
        var seen = Set<String>()
        for voice in voices {
            try VoiceValidation.check(voice)
            if !seen.insert(voice.definition.name).inserted {
                throw voice.error("name", "a second voice named '\(voice.definition.name)'")
            }
        }
        try validatePerformers()
    }

    /// The most performers one engine follows.
    public static let maximumPerformers = 16

    /// The performers' names (one unnamed heart when the preset names none).
    public var performerNames: [String] { preset.performers ?? [] }

    /// The heart voice `voice` follows: a performer's index (0: the first), the ensemble's
    /// (`performerNames.count`), or −1 for a `together` voice (it fires on aligned beats only).
    public func performerIndex(of voice: LoadedVoice) -> Int {
        if voice.definition.together != nil { return -1 }
        if voice.definition.heart == "ensemble" { return performerNames.count }
        return voice.definition.heart.flatMap { performerNames.firstIndex(of: $0) } ?? 0
    }

    /// The ensemble heart's tempo rule, when a voice follows it (nil: no ensemble heart).
    public func ensembleTempo() -> EnsembleTempo? {
        guard voices.contains(where: { $0.definition.heart == "ensemble" }) else { return nil }
        switch preset.ensemble?.tempo ?? "mean" {
        case "median": return .median
        case "leader": return .leader(preset.ensemble?.leader.flatMap { performerNames.firstIndex(of: $0) } ?? 0)
        default: return .mean
        }
    }

    /// The performer pair and window (frames) of a `together` voice.
    public func together(of voice: LoadedVoice, sampleRate: Int) -> (first: Int, second: Int, window: Int64)? {
        guard let pair = voice.definition.together, pair.count == 2,
              let first = performerNames.firstIndex(of: pair[0]), let second = performerNames.firstIndex(of: pair[1]) else { return nil }
        return (first, second, Int64(((voice.definition.windowMS ?? 30) / 1000 * Double(sampleRate)).rounded()))
    }

    private func validatePerformers() throws {
        let names = performerNames
        if preset.performers != nil {
            guard (1...Self.maximumPerformers).contains(names.count) else {
                throw InputError(file: file, line: line("performers"), field: "performers",
                                 "\(names.count) performers: one engine follows 1…\(Self.maximumPerformers)")
            }
            for name in names {
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
                      name != "ensemble" else {
                    throw InputError(file: file, line: line("performers"), field: "performers",
                                     "'\(name)' is not a performer name (letters, digits, - and _; not 'ensemble')")
                }
            }
            if Set(names).count != names.count {
                throw InputError(file: file, line: line("performers"), field: "performers", "a performer is named twice")
            }
        }
        if let ensemble = preset.ensemble {
            guard ["mean", "median", "leader"].contains(ensemble.tempo ?? "mean") else {
                throw InputError(file: file, line: line("ensemble"), field: "ensemble.tempo",
                                 "'\(ensemble.tempo ?? "")' is not mean, median or leader")
            }
            if (ensemble.tempo ?? "mean") == "leader" {
                guard let leader = ensemble.leader, names.contains(leader) else {
                    throw InputError(file: file, line: line("ensemble"), field: "ensemble.leader",
                                     "tempo: leader needs a leader, one of performers (\(names.joined(separator: ", ")))")
                }
            }
        }
        for voice in voices {
            if let pair = voice.definition.together {
                guard pair.count == 2, pair[0] != pair[1], pair.allSatisfy(names.contains) else {
                    throw voice.error("together", "needs two different performers of performers (\(names.joined(separator: ", ")))")
                }
                guard voice.definition.heart == nil else { throw voice.error("heart", "a together voice follows no single heart") }
            }
            if let window = voice.definition.windowMS {
                guard voice.definition.together != nil else { throw voice.error("window_ms", "only with together") }
                guard window.isFinite, (1...1000).contains(window) else { throw voice.error("window_ms", "\(window) is outside 1…1000 ms") }
            }
            guard let heart = voice.definition.heart else { continue }
            if heart == "ensemble" {
                guard !names.isEmpty else { throw voice.error("heart", "ensemble: the preset names no performers") }
                continue
            }
            guard names.contains(heart) else {
                throw voice.error("heart", names.isEmpty
                    ? "'\(heart)': the preset names no performers (performers: [\(heart), …])"
                    : "'\(heart)' is not one of performers (\(names.joined(separator: ", ")))")
            }
        }
    }
}

/// What a MIDI control change sets: gain 0…1 (value/127), pan −1…1, or enable (value ≥ 64).
public enum MIDIControl: String, Sendable, BitwiseCopyable {
    case gain, pan, enable
}
