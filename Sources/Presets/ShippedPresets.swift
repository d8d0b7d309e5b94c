import Foundation

/// The shipped presets folder: `./presets` when run from the repository, else the one beside
/// the sources this binary was built from.
public enum ShippedPresets {
    public static var folder: String {
        let local = FileManager.default.currentDirectoryPath + "/presets"
        if FileManager.default.fileExists(atPath: local + "/default/preset.yaml") { return local }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("presets").path
    }

    /// The preset `run`, `render` and `voices` use when none is named.
    public static var defaultPreset: String { folder + "/default" }
    /// The session `make demo` renders.
    public static var demoSession: String { folder + "/default/demo-session.csv" }
}
