import Foundation
import UserFiles

/// The presets pulsejack ships: installed under `PREFIX/share/pulsejack/presets` (the binary in
/// `PREFIX/bin`), or in the clone it was built in (`presets/` beside `Package.swift`).
public enum ShippedPresets {
    /// `PREFIX/share/pulsejack/presets` when this binary is `PREFIX/bin/pulsejack` and it exists.
    public static var installedFolder: String? {
        let folder = Installation.prefix.appendingPathComponent("share/pulsejack/presets").standardizedFileURL.path
        return isPresetsFolder(folder) ? folder : nil
    }

    /// The clone's `presets/` (`Installation.cloneRoot`).
    public static var cloneFolder: String? {
        guard let presets = Installation.cloneRoot?.appendingPathComponent("presets").path, isPresetsFolder(presets) else { return nil }
        return presets
    }

    /// The shipped presets: the installed ones, else the clone's.
    public static func folder() throws -> String {
        guard let folder = installedFolder ?? cloneFolder else {
            throw InputError(file: Installation.prefix.appendingPathComponent("share/pulsejack/presets").path,
                             "the shipped presets are missing (reinstall pulsejack: `make install` or its package)")
        }
        return folder
    }

    /// The preset `run`, `render` and `voices` use when none is named (found on the search path,
    /// so a user's own `default` comes first).
    public static let defaultPreset = "default"

    /// The shipped default preset and the session `pulsejack demo` renders with it.
    public static func demo() throws -> (preset: String, session: String) {
        let folder = try folder()
        return (folder + "/default", folder + "/default/demo-session.csv")
    }

    private static func isPresetsFolder(_ folder: String) -> Bool {
        FileManager.default.fileExists(atPath: folder + "/default/preset.yaml")
    }
}
