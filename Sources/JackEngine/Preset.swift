import Control
import Foundation
import Yams

/// A preset: the voices, their sounds and how they follow the heart. YAML, decoded with Codable.
///
/// A preset path is a `preset.yaml` file or a folder holding one; sound files are relative to
/// the preset's folder.
public struct Preset: Codable, Sendable {
    public var name: String?
    public var description: String?
    /// The tempo until a sensor says otherwise (`run --bpm` overrides it).
    public var bpm: Double?
    public var voices: [VoiceDefinition]

    public struct VoiceDefinition: Codable, Sendable {
        public var name: String
        public var kind: VoiceKind
        /// The sound file, relative to the preset's folder (kind `sample`).
        public var file: String?
        public var gain: Float?
        public var pan: Float?
        /// Fire on every Nth beat, 1…16.
        public var every: Int?
        /// Pulses per fired beat: 1, 2, 3 or 4.
        public var subdivide: Int?
        public var enabled: Bool?
        /// Whether the heartbeat fires it (false: only triggers, MIDI notes and regions do).
        public var onBeat: Bool?
        /// A MIDI note (0…127) on the MIDI input that triggers it.
        public var midiNote: Int?
        /// Notes that can sound at once (kind `sample`).
        public var polyphony: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, kind, file, gain, pan, every, subdivide, enabled, polyphony
            case onBeat = "on_beat"
            case midiNote = "midi_note"
        }

        public var rate: BeatRate {
            BeatRate(everyNthBeat: UInt8(clamping: every ?? 1), subdivision: UInt8(clamping: subdivide ?? 1))
        }
    }

    public enum VoiceKind: String, Codable, Sendable, CaseIterable {
        case click, sample
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, bpm, voices
    }
}

/// A preset read from disk, with the place of every field for error messages.
public struct LoadedPreset: Sendable {
    public var preset: Preset
    /// The preset file's absolute path.
    public var file: String
    public var folder: String { (file as NSString).deletingLastPathComponent }

    /// Absolute path of a voice's sound file.
    public func soundPath(_ voice: Preset.VoiceDefinition) -> String? {
        guard let file = voice.file else { return nil }
        if file.hasPrefix("/") { return file }
        return URL(fileURLWithPath: folder).appendingPathComponent(file).standardizedFileURL.path
    }

    /// Lines of fields, keyed by path like "voices[1].gain".
    let lines: [String: Int]

    func line(_ path: String) -> Int? { lines[path] }

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
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw InputError(file: file, "cannot read the preset (unreadable or not UTF-8)")
        }
        let node: Node
        do {
            guard let composed = try Yams.compose(yaml: text) else {
                throw InputError(file: file, "the preset is empty")
            }
            node = composed
        } catch let error as YamlError {
            throw Self.describe(error, file: file)
        }
        var lines: [String: Int] = [:]
        try Self.checkKeys(node, file: file, lines: &lines)
        let preset: Preset
        do {
            preset = try YAMLDecoder().decode(Preset.self, from: text)
        } catch let error as DecodingError {
            throw Self.describe(error, file: file, lines: lines)
        }
        let loaded = LoadedPreset(preset: preset, file: file, lines: lines)
        try loaded.validate()
        return loaded
    }

    private func validate() throws {
        func fail(_ path: String, _ message: String) -> InputError {
            InputError(file: file, line: line(path), field: path, message)
        }
        if let bpm = preset.bpm, !HeartbeatClock.accepts(bpm: bpm) {
            throw fail("bpm", "\(bpm) is not a heart rate (above 0, at most 300)")
        }
        if preset.voices.isEmpty { throw fail("voices", "a preset needs at least one voice") }
        var seen = Set<String>()
        for (index, voice) in preset.voices.enumerated() {
            let at = "voices[\(index)]"
            if voice.name.isEmpty || voice.name.contains(where: { $0.isWhitespace || $0 == "/" }) {
                throw fail("\(at).name", "'\(voice.name)' is not a voice name (no spaces or '/')")
            }
            if !seen.insert(voice.name).inserted { throw fail("\(at).name", "a second voice named '\(voice.name)'") }
            if let gain = voice.gain, !(gain.isFinite && (0...4).contains(gain)) {
                throw fail("\(at).gain", "\(gain) is outside 0…4")
            }
            if let pan = voice.pan, !(pan.isFinite && (-1...1).contains(pan)) {
                throw fail("\(at).pan", "\(pan) is outside −1…1")
            }
            if let every = voice.every, !(1...16).contains(every) {
                throw fail("\(at).every", "\(every) is outside 1…16")
            }
            if let subdivide = voice.subdivide, ![1, 2, 3, 4].contains(subdivide) {
                throw fail("\(at).subdivide", "\(subdivide) is not 1, 2, 3 or 4")
            }
            if let note = voice.midiNote, !(0...127).contains(note) {
                throw fail("\(at).midi_note", "\(note) is outside 0…127")
            }
            if let polyphony = voice.polyphony, !(1...256).contains(polyphony) {
                throw fail("\(at).polyphony", "\(polyphony) is outside 1…256")
            }
            switch voice.kind {
            case .click:
                if voice.file != nil { throw fail("\(at).file", "a click voice plays no file") }
            case .sample:
                guard let sound = soundPath(voice) else { throw fail(at, "a sample voice needs 'file'") }
                if !FileManager.default.fileExists(atPath: sound) {
                    throw fail("\(at).file", "sound file not found: \(sound)")
                }
            }
        }
    }

    /// Records each field's line and refuses keys the format does not have (a typo would
    /// otherwise be ignored without a word).
    private static func checkKeys(_ node: Node, file: String, lines: inout [String: Int]) throws {
        guard let root = node.mapping else {
            throw InputError(file: file, line: node.mark?.line, "the preset must be a mapping of fields (name, voices …)")
        }
        let voiceKeys = Set(Preset.VoiceDefinition.CodingKeys.allCases.map(\.rawValue))
        let rootKeys = Set(Preset.CodingKeys.allCases.map(\.rawValue))
        for (key, value) in root {
            let name = key.string ?? ""
            guard rootKeys.contains(name) else {
                throw InputError(file: file, line: key.mark?.line, field: name,
                                 "unknown field (known: \(rootKeys.sorted().joined(separator: ", ")))")
            }
            lines[name] = key.mark?.line
            guard name == "voices", let voices = value.sequence else { continue }
            for (index, voice) in voices.enumerated() {
                lines["voices[\(index)]"] = voice.mark?.line
                guard let fields = voice.mapping else { continue }
                for (voiceKey, _) in fields {
                    let field = voiceKey.string ?? ""
                    guard voiceKeys.contains(field) else {
                        throw InputError(file: file, line: voiceKey.mark?.line, field: "voices[\(index)].\(field)",
                                         "unknown field (known: \(voiceKeys.sorted().joined(separator: ", ")))")
                    }
                    lines["voices[\(index)].\(field)"] = voiceKey.mark?.line
                }
            }
        }
    }

    private static func describe(_ error: YamlError, file: String) -> InputError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            return InputError(file: file, line: mark.line, "not valid YAML: \(problem)")
        default:
            return InputError(file: file, "not valid YAML: \(error)")
        }
    }

    private static func describe(_ error: DecodingError, file: String, lines: [String: Int]) -> InputError {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
                .joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        func lineFor(_ field: String) -> Int? {
            var candidate = field
            while !candidate.isEmpty {
                if let line = lines[candidate] { return line }
                guard let cut = candidate.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
                candidate = String(candidate[..<cut])
            }
            return nil
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return InputError(file: file, line: lineFor(field), field: field, "missing")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            let expected = type == String.self ? "text" : type == Bool.self ? "true or false"
                : (type == Int.self ? "a whole number" : type == [Preset.VoiceDefinition].self ? "a list of voices" : "a number")
            return InputError(file: file, line: lineFor(field), field: field, "expected \(expected)")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if field.hasSuffix(".kind") {
                return InputError(file: file, line: lineFor(field), field: field,
                                  "unknown voice kind (known: \(Preset.VoiceKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return InputError(file: file, line: lineFor(field), field: field, context.debugDescription)
        @unknown default:
            return InputError(file: file, "\(error)")
        }
    }
}
