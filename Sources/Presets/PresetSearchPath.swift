import Foundation
import UserFiles
import Yams

/// Where a preset named without a path is looked for, in order: the user's own folders
/// (`$XDG_CONFIG_HOME/pulsejack/presets`, then `$XDG_DATA_HOME/pulsejack/presets`), the
/// installed ones (`PREFIX/share/pulsejack/presets`, beside the binary's `bin/`), then the
/// clone's (`presets/` of the clone the binary was built in). The first folder holding
/// `NAME/preset.yaml` wins, as a shell's PATH does.
public struct PresetSearchPath: Sendable {
    public enum Place: String, Sendable, Codable {
        case config, data, installed, clone

        /// How `pulsejack presets` names it.
        public var label: String {
            switch self {
            case .config: "yours (config)"
            case .data: "yours (data)"
            case .installed: "installed"
            case .clone: "clone"
            }
        }
    }

    public struct Folder: Sendable {
        public var place: Place
        public var path: String
    }

    /// One preset found by name: where it lives, and the places whose preset of that name it hides.
    public struct Entry: Sendable {
        public var name: String
        public var description: String?
        public var folder: String
        public var place: Place
        public var hides: [Place]
    }

    public var folders: [Folder]

    public init(folders: [Folder]) { self.folders = folders }

    /// The search path this process uses, from its environment and its own location.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> PresetSearchPath {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        // XDG: an unset, empty or relative value means the default.
        func xdg(_ variable: String, _ fallback: String) -> String {
            guard let value = environment[variable], value.hasPrefix("/") else { return home + "/" + fallback }
            return value
        }
        var folders = [Folder(place: .config, path: xdg("XDG_CONFIG_HOME", ".config") + "/pulsejack/presets"),
                       Folder(place: .data, path: xdg("XDG_DATA_HOME", ".local/share") + "/pulsejack/presets")]
        if let installed = ShippedPresets.installedFolder { folders.append(Folder(place: .installed, path: installed)) }
        if let clone = ShippedPresets.cloneFolder { folders.append(Folder(place: .clone, path: clone)) }
        return PresetSearchPath(folders: folders)
    }

    /// The user's own folder, where `presets --copy` puts a preset to edit.
    public var userFolder: String { folders.first { $0.place == .config }?.path ?? folders[0].path }

    /// Whether `value` reads as a name (no slash, not a YAML file), not as a path.
    /// Why `value` cannot name a new preset (a copy's `--as`): nil when it can. A name is a folder
    /// a shell and a unit (`pulsejack@NAME`) pass as it is: letters, digits, '-', '_', '.', '+',
    /// not starting with '.'.
    public static func newNameProblem(_ value: String) -> String? {
        if value.isEmpty { return "a preset's name cannot be empty" }
        if !isName(value) { return "'\(value)': a preset's name has no slash and no .yaml" }
        if value.hasPrefix(".") { return "'\(value)': a preset's name cannot start with '.' (a hidden folder)" }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.+"))
        guard value.unicodeScalars.allSatisfy(allowed.contains) else {
            return "'\(value.unicodeScalars.map { allowed.contains($0) ? String($0) : "?" }.joined())': a preset's name is letters, digits, '-', '_', '.' and '+' (no spaces, tabs or control characters)"
        }
        return nil
    }

    public static func isName(_ value: String) -> Bool {
        !value.isEmpty && !value.contains("/") && !value.hasSuffix(".yaml") && !value.hasSuffix(".yml") && value != "." && value != ".."
    }

    /// The preset `value` names: a path that exists stays a path (so `--preset mine` still opens
    /// `./mine`); a name is looked up on the search path. Throws one error naming the places searched.
    public func resolve(_ value: String) throws -> String {
        guard Self.isName(value), !FileManager.default.fileExists(atPath: value) else { return value }
        if let folder = folder(named: value) { return folder }
        throw InputError(file: value, "no preset of that name (searched \(folders.map(\.path).joined(separator: ", "))); "
                         + "`pulsejack presets` lists them, or give a preset.yaml file or a folder holding one")
    }

    /// The first folder on the path holding a preset called `name`.
    public func folder(named name: String) -> String? {
        guard Self.isName(name) else { return nil }
        return folders.lazy.map { $0.path + "/" + name }.first { FileManager.default.fileExists(atPath: $0 + "/preset.yaml") }
    }

    /// Every preset on the path, by name, the first of each name winning.
    public func presets() -> [Entry] {
        var entries: [Entry] = []
        var index: [String: Int] = [:]
        for folder in folders {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            for name in names where Self.isName(name) && FileManager.default.fileExists(atPath: "\(folder.path)/\(name)/preset.yaml") {
                if let known = index[name] {
                    entries[known].hides.append(folder.place)
                    continue
                }
                index[name] = entries.count
                entries.append(Entry(name: name, description: Self.description(of: "\(folder.path)/\(name)/preset.yaml"),
                                     folder: "\(folder.path)/\(name)", place: folder.place, hides: []))
            }
        }
        return entries
    }

    /// The preset's `description:`, read without validating the rest (a list must not fail on one
    /// broken preset); nil when it has none or cannot be read.
    static func description(of file: String) -> String? {
        guard let data = try? UserFile.read(file, what: "preset"), let text = String(data: data, encoding: .utf8),
              let heading = try? YAMLDecoder().decode(PresetHeading.self, from: text) else { return nil }
        return heading.description ?? heading.name
    }

    private struct PresetHeading: Decodable {
        var name: String?
        var description: String?
    }
}
