import Foundation

/// What the repository ships, for tests: its presets folder.
public enum Shipped {
    public static var presets: URL { Subprocess.repository.appendingPathComponent("presets") }
}
