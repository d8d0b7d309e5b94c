import ArgumentParser
import Plugins

/// Describes one CLAP plugin for an engine that will isolate it; the engine starts it, never a person.
struct CLAPDescribe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clap-describe",
        abstract: "Print one CLAP plugin's ports as JSON (run by the engine before it isolates the plugin).",
        shouldDisplay: false)

    @Argument(help: "The plugin's CLAP id.") var id: String

    func run() throws {
        print(try CLAPWorld.describedJSON(id))
    }
}
