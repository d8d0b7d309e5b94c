import UserFiles
import Inputs
import Foundation
import Voices
import Yams
import Realtime
import Engine

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

    /// Control thread. Reads and validates the preset `path` names: a file, a folder, or a name
    /// on the search path (`PresetSearchPath`).
    public static func load(path named: String, searching searchPath: PresetSearchPath = .standard()) throws -> LoadedPreset {
        let file = try presetFile(named: named, searching: searchPath)
        let (preset, lines) = try YAMLFile.decode(Preset.self, file: file, rootKeys: Preset.CodingKeys.allCases.map(\.rawValue))
        let loaded = LoadedPreset(preset: preset, file: file, voices: try voices(of: preset, file: file, lines: lines), lines: lines)
        try loaded.validate()
        _ = try loaded.controlChanges()
        _ = try loaded.regionNotes()
        _ = try loaded.performanceSettings()
        _ = try OutputLayout(preset: loaded)
        try loaded.checkSections()
        return loaded
    }

    /// The `preset.yaml` a name, a file or a folder stands for, its path made standard.
    private static func presetFile(named: String, searching searchPath: PresetSearchPath) throws -> String {
        let path = try searchPath.resolve(named)
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
        return URL(fileURLWithPath: file).standardizedFileURL.path
    }

    /// The preset's voices, then each included file's, with `settings:` applied to them by name.
    private static func voices(of preset: Preset, file: String, lines: [String: Int]) throws -> [LoadedVoice] {
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
        return voices
    }

    /// The preset's numbers against their ranges (`PresetFields`), Tambour's pose thresholds,
    /// the moods, the modulations' sources and the dropout's action.
    private func checkSections() throws {
        for field in PresetFields.all {
            guard let value = field.given(in: preset), let problem = field.problem(with: value) else { continue }
            let parent = field.path.split(separator: ".").first.map(String.init) ?? field.path
            throw InputError(file: file, line: lines[field.path] ?? lines[parent], field: field.path, problem)
        }
        if let pose = preset.pose {
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
        for (index, mood) in (preset.moods ?? []).enumerated() {
            let bounds = [mood.alpha, mood.beta, mood.delta, mood.theta, mood.gamma].compactMap { $0 }
            if mood.mood.isEmpty || bounds.isEmpty || bounds.contains(where: { $0.atLeast == nil && $0.below == nil }) {
                throw InputError(file: file, line: lines["moods[\(index)]"] ?? lines["moods"], field: "moods[\(index)]",
                                 "a mood needs a name and at least one band with at_least or below")
            }
        }
        for (index, entry) in (preset.modulations ?? []).enumerated() {
            if case .failure(let error) = ModulationTable.source(entry.from, performers: performerNames) {
                let field = "modulations[\(index)].from"
                throw InputError(file: file, line: lines[field] ?? lines["modulations[\(index)]"], field: field, error.text)
            }
        }
        if let action = preset.dropout?.action, !["hold", "fade"].contains(action) {
            throw InputError(file: file, line: lines["dropout.action"] ?? lines["dropout"], field: "dropout.action", "'\(action)' is not hold or fade")
        }
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
        (PresetFields.dropoutSeconds.value(in: preset), preset.dropout?.action == "fade")
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
        return (first, second, Int64((VoiceFields.windowMS.value(in: voice.definition) / 1000 * Double(sampleRate)).rounded()))
    }

    /// Every sensor the run reads, as written: `sensors:` (the first performer's) and each
    /// performer's own `heart:`/`eeg:`; `heart`/`eeg` given here (`run --heart`, `--eeg`) take the
    /// first performer's place. Each with the field and line it came from; a live run resolves
    /// them into devices and streams (`Runs/BodySources`).
    /// The camera pose source: `--pose` (`option`) over the preset's `sensors.pose`; where a
    /// problem with it is to be told (the option, or the preset's file and line).
    public func poseSpec(option: String?) -> (text: String, origin: String)? {
        if let option { return (option, "--pose") }
        guard var text = preset.sensors?.pose else { return nil }
        // A video beside the preset, as its sounds are.
        if text.hasPrefix("video:"), !text.dropFirst("video:".count).hasPrefix("/") {
            text = "video:" + (folder as NSString).appendingPathComponent(String(text.dropFirst("video:".count)))
        }
        return (text, "\(file):\(line("sensors.pose") ?? line("sensors") ?? 1): sensors.pose")
    }

    public func sensorSpecs(heart: String? = nil, eeg: String? = nil) -> [SensorSpec] {
        let entries = preset.performerEntries ?? []
        var specs: [(spec: String?, role: SensorRole, performer: Int, field: String)] = [
            (heart ?? preset.sensors?.heart ?? entries.first?.heart, .heart, 0, heart == nil ? "sensors.heart" : "--heart"),
            (eeg ?? preset.sensors?.eeg ?? entries.first?.eeg, .eeg, 0, eeg == nil ? "sensors.eeg" : "--eeg"),
        ]
        for (index, entry) in entries.enumerated().dropFirst() {
            specs += [(entry.heart, .heart, index, "performers[\(index)].heart"), (entry.eeg, .eeg, index, "performers[\(index)].eeg")]
        }
        return specs.compactMap { entry in
            entry.spec.map { text in
                let parent = String(entry.field[..<(entry.field.lastIndex(of: ".") ?? entry.field.endIndex)])
                return SensorSpec(text, role: entry.role, performer: entry.performer, field: entry.field, file: file,
                                  line: line(entry.field) ?? line(parent) ?? line("sensors") ?? line("performers"))
            }
        }
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
            if voice.definition.windowMS != nil, voice.definition.together == nil { throw voice.error("window_ms", "only with together") }
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

