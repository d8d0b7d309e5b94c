import Control
import Foundation
import Yams

extension LoadedPreset {
    /// The preset as it plays now, standing alone: included voices inlined, per-preset settings
    /// folded in, every sound path absolute, and each voice's current enable, gain, pan and rate.
    /// Loading the result plays the same graph from any folder (a session manager's save).
    public func standalone(bpm: Double?, states: [String: VoiceState]) -> Preset {
        var saved = preset
        saved.include = nil
        saved.settings = nil
        if let bpm { saved.bpm = bpm }
        saved.voices = voices.map { voice in
            var definition = voice.definition
            for field in definition.kind.descriptor.fields where field.value.isPath {
                if let path = definition.options[field.key]?.text { definition.options[field.key] = .text(voice.soundPath(path)) }
            }
            if let state = states[definition.name] {
                definition.enabled = state.enabled
                definition.mute = nil
                definition.gain = state.gain
                definition.pan = state.pan
                definition.every = Int(state.rate.everyNthBeat)
                definition.subdivide = Int(state.rate.subdivision)
            }
            return definition
        }
        return saved
    }

    /// Yams writes every float in exponent form (80 → `8e+1`); a person reads `80.0`.
    static func plainNumbers(_ yaml: String) -> String {
        yaml.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let separator = line.range(of: ": ", options: .backwards) ?? line.range(of: "- ", options: .anchored),
                  line[separator.upperBound...].contains("e"), let number = Double(line[separator.upperBound...]) else { return String(line) }
            return line[..<separator.upperBound] + "\(number)"
        }.joined(separator: "\n")
    }

    /// Writes `standalone(…)` as YAML to `path` (atomically: a crash mid-save keeps the old file).
    public func save(to path: String, bpm: Double?, states: [String: VoiceState]) throws {
        let yaml: String
        do {
            yaml = "# Saved by pulsejack from \(file)\n" + Self.plainNumbers(try YAMLEncoder().encode(standalone(bpm: bpm, states: states)))
        } catch {
            throw InputError(file: path, "cannot encode the preset: \(error)")
        }
        do {
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw InputError(file: path, "cannot save the preset: \(error.localizedDescription)")
        }
    }
}
