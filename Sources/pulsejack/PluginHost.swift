import ArgumentParser
import Foundation
import Plugins

/// The process an isolated plugin runs in; the engine starts it, never a person.
struct PluginHost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin-host",
        abstract: "Host one isolated LV2 plugin for a running pulsejack (started by the engine for `isolate: true`).",
        discussion: "Runs the plugin each time the engine posts a run in the shared memory at --region; a crash or a hang here costs only this plugin.",
        shouldDisplay: false)

    @Option(help: "The engine's shared memory (a /proc/PID/fd/N path).") var region: String
    @Option(help: "The plugin's URI.") var uri: String
    @Option(help: "The sample rate.") var rate: Int
    @Flag(help: "Offline: the plugin's worker runs synchronously.") var offline = false
    @Option(help: "A saved state to restore.") var state: String?
    @Option(help: "Where the plugin keeps the files it makes.") var files: String?

    func run() throws {
        throw ExitCode(PluginHostChild.serve(.init(region: region, uri: uri, sampleRate: rate, offline: offline, state: state, files: files)))
    }
}
