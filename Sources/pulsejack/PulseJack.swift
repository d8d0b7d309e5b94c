import ArgumentParser
import Foundation

@main
struct PulseJack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pulsejack",
        abstract: "A real-time JACK audio engine that makes the body an instrument.",
        discussion: "Voices fire sample-accurately on the heartbeat; sensors reach the engine through lock-free rings.",
        subcommands: [Run.self, Status.self, Render.self, Voices.self, Library.self, Study.self, Demo.self])
}

/// Prints one clear line for an error and exits non-zero.
func fail(_ message: Any) -> ExitCode {
    FileHandle.standardError.write(Data("pulsejack: error: \(message)\n".utf8))
    return ExitCode(1)
}

func warn(_ message: CustomStringConvertible) {
    FileHandle.standardError.write(Data("pulsejack: warning: \(message)\n".utf8))
}

/// The shipped presets folder: `./presets` when run from the repository, else the one beside
/// the sources this binary was built from.
enum ShippedPresets {
    static var folder: String {
        let local = FileManager.default.currentDirectoryPath + "/presets"
        if FileManager.default.fileExists(atPath: local + "/default/preset.yaml") { return local }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("presets").path
    }

    static var defaultPreset: String { folder + "/default" }
    static var demoSession: String { folder + "/default/demo-session.csv" }
}
