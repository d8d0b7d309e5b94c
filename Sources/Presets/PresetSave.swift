import UserFiles
import Inputs
import Foundation
import Yams
import Engine

extension LoadedPreset {
    /// The preset as it plays now, standing alone: included voices inlined, per-preset settings
    /// folded in, every sound path absolute, and each voice's current enable, gain, pan and rate.
    /// Loading the result plays the same graph from any folder (a session manager's save).
    /// `plugins`: hosted plugins' controls and saved state folders by place ("piano",
    /// "piano.insert1", "master.insert1"; `RealtimeEngine.savePluginStates`). `modulationsOn`: each
    /// modulation's switch now, in the preset's order.
    public func standalone(bpm: Double?, states: [String: VoiceState], plugins: [String: EngineHandle.SavedPlugin] = [:],
                           modulationsOn: [Bool] = []) -> Preset {
        var saved = preset
        saved.include = nil
        saved.settings = nil
        if let bpm { saved.bpm = bpm }
        for (index, on) in modulationsOn.enumerated() where index < saved.modulations?.count ?? 0 {
            saved.modulations?[index].enabled = on ? nil : false
        }
        saved.voices = voices.map { voice in
            var definition = voice.definition
            for field in definition.kind.descriptor.fields where field.value.isPath {
                if let path = definition.options[field.key]?.text { definition.options[field.key] = .text(voice.soundPath(path)) }
            }
            if let plugin = plugins[definition.name] {
                definition.options["controls"] = .controls(plugin.controls)
                definition.options["state"] = .text(plugin.state)
            }
            definition.inserts = Self.saved(definition.inserts, place: definition.name, folder: voice.folder, plugins: plugins)
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
        let masterInserts = Self.saved(saved.master?.inserts, place: "master", folder: folder, plugins: plugins)
        saved.master?.inserts = masterInserts
        return saved
    }

    /// Inserts with their controls now and their saved states; a state they named already is
    /// made absolute (standing alone, like the sounds), `folder` being the file's that named it.
    private static func saved(_ inserts: [Preset.Insert]?, place: String, folder: String,
                              plugins: [String: EngineHandle.SavedPlugin]) -> [Preset.Insert]? {
        inserts?.enumerated().map { index, insert in
            var insert = insert
            insert.state = insert.state.map { resolve($0, in: folder) }
            if let plugin = plugins["\(place).insert\(index + 1)"] {
                insert.controls = plugin.controls
                insert.state = plugin.state
            }
            return insert
        }
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
    public func save(to path: String, bpm: Double?, states: [String: VoiceState],
                     plugins: [String: EngineHandle.SavedPlugin] = [:], modulationsOn: [Bool] = []) throws {
        // Plugin states inside the saved preset's folder are named relative to it, so the
        // session folder can move (a session manager's archive, another machine).
        let folder = (path as NSString).deletingLastPathComponent + "/"
        let plugins = plugins.mapValues { plugin in
            var plugin = plugin
            if plugin.state.hasPrefix(folder) { plugin.state = String(plugin.state.dropFirst(folder.count)) }
            return plugin
        }
        let yaml: String
        do {
            yaml = "# Saved by pulsejack from \(file)\n"
                + Self.plainNumbers(try YAMLEncoder().encode(standalone(bpm: bpm, states: states, plugins: plugins, modulationsOn: modulationsOn)))
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
