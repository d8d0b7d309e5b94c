import ArgumentParser
import Plugins

/// Describes one CLAP plugin for an engine that will isolate it; the engine starts it, never a person.
struct CLAPDescribe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clap-describe",
        abstract: "Print one CLAP plugin's ports as JSON (run by the engine before it isolates the plugin).",
        shouldDisplay: false)

    @Argument(help: "The plugin's CLAP id.") var id: String
    @Option(help: "Load this preset (its name or reference), and save the state it leaves in --save.") var preset: String?
    @Option(help: "The folder the state after --preset is saved in.") var save: String?

    func run() throws {
        if let preset, let save { return try CLAPWorld.savePreset(id, preset: preset, to: save) }
        print(try CLAPWorld.describedJSON(id))
    }
}
