import Foundation

/// Where this binary is, and what lies around it: an installation's PREFIX (the binary is
/// `PREFIX/bin/pulsejack`), or the clone it was built in. The one place that reads it, for the
/// presets, liblsl and an isolated plugin's child.
public enum Installation {
    /// This process's executable, symbolic links followed. Not `argv[0]`: a shell that found the
    /// binary on PATH passes only its name.
    public static var executable: URL {
        URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    }

    /// PREFIX, when the binary is `PREFIX/bin/pulsejack`.
    public static var prefix: URL { executable.deletingLastPathComponent().deletingLastPathComponent() }

    /// The clone's root: the current folder when it is one, else the nearest folder above the
    /// binary that is (`.build/<config>/pulsejack`, or a test bundle deeper); nil for an
    /// installed binary.
    public static var cloneRoot: URL? {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if isClone(here) { return here }
        var folder = executable.deletingLastPathComponent()
        while folder.path != "/" {
            if isClone(folder) { return folder }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// Whether this binary was built in a clone (it lies below one), whatever the current folder.
    public static var builtInClone: Bool {
        var folder = executable.deletingLastPathComponent()
        while folder.path != "/" {
            if isClone(folder) { return true }
            folder = folder.deletingLastPathComponent()
        }
        return false
    }

    /// pulsejack's clone, not another Swift package: its manifest beside the tool's sources.
    private static func isClone(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
            && FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/pulsejack").path)
    }
}
