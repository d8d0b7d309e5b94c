import ArgumentParser
import Foundation
import Presets
import Plugins

/// What the shells complete beyond the options themselves (`--generate-completion-script
/// bash|zsh|fish`): the shell runs pulsejack back with the words typed so far.
enum Completions {
    /// Preset names on the search path; with a slash typed, the folders and YAML files there.
    static let presets = CompletionKind.custom { _, _, prefix in
        guard PresetSearchPath.isName(prefix) || prefix.isEmpty else { return paths(matching: prefix) }
        return PresetSearchPath.standard().presets().map(\.name).filter { $0.hasPrefix(prefix) }
    }

    /// The voices of the preset named earlier on the line (`--preset`), else of the default one.
    static let voices = CompletionKind.custom { words, _, prefix in voiceNames(words: words, prefix: prefix) }

    private static func voiceNames(words: [String], prefix: String) -> [String] {
        var named: String?
        for (index, word) in words.enumerated() {
            if word == "--preset", index + 1 < words.count { named = words[index + 1] }
            if word.hasPrefix("--preset=") { named = String(word.dropFirst("--preset=".count)) }
        }
        guard let loaded = try? LoadedPreset.load(path: named ?? ShippedPresets.defaultPreset) else { return [] }
        let names: [String] = loaded.voices.compactMap { $0.definition.name }
        return names.filter { $0.hasPrefix(prefix) }
    }

    /// The installed LV2 plugins' URIs.
    static let pluginURIs = CompletionKind.custom { _, _, prefix in
        (PluginCatalog(includingCLAP: false).plugins.map(\.uri) + CLAPWorld.plugins().plugins.map(\.uri)).filter { $0.hasPrefix(prefix) }
    }

    /// Folders (with a slash, to go on typing) and YAML files whose path starts with `prefix`.
    private static func paths(matching prefix: String) -> [String] {
        let folder = prefix.hasSuffix("/") ? prefix : (prefix as NSString).deletingLastPathComponent
        let listed = folder.isEmpty ? "." : folder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: listed)) ?? []
        return names.sorted().compactMap { name in
            let path = folder.isEmpty ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
            guard path.hasPrefix(prefix) else { return nil }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { return path + "/" }
            return path.hasSuffix(".yaml") || path.hasSuffix(".yml") ? path : nil
        }
    }
}

/// The `--preset` option's help, the same on every command that takes one.
let presetHelp = ArgumentHelp("The preset: a name (`pulsejack presets` lists them: yours, then the installed ones), a preset.yaml file, or a folder holding one.",
                              valueName: "NAME|PATH")
