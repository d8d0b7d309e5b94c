import Foundation
import UserFiles

/// The presets pulsejack ships: installed under `PREFIX/share/pulsejack/presets` (the binary in
/// `PREFIX/bin`), or in the clone it was built in (`presets/` beside `Package.swift`).
public enum ShippedPresets {
    /// This process's executable, symbolic links followed.
    static var executable: URL {
        URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    }

    /// `PREFIX/share/pulsejack/presets` when this binary is `PREFIX/bin/pulsejack` and it exists.
    public static var installedFolder: String? {
        let prefix = executable.deletingLastPathComponent().deletingLastPathComponent()
        let folder = prefix.appendingPathComponent("share/pulsejack/presets").standardizedFileURL.path
        return isPresetsFolder(folder) ? folder : nil
    }

    /// The clone's `presets/`: the current folder's when it is a clone's root, else the one above
    /// the binary (`.build/<config>/pulsejack`, or a test bundle deeper).
    public static var cloneFolder: String? {
        let here = FileManager.default.currentDirectoryPath
        if FileManager.default.fileExists(atPath: here + "/Package.swift"), isPresetsFolder(here + "/presets") { return here + "/presets" }
        var folder = executable.deletingLastPathComponent()
        while folder.path != "/" {
            let presets = folder.appendingPathComponent("presets").path
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path), isPresetsFolder(presets) { return presets }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// The shipped presets: the installed ones, else the clone's.
    public static func folder() throws -> String {
        guard let folder = installedFolder ?? cloneFolder else {
            throw InputError(file: executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/pulsejack/presets").path,
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
