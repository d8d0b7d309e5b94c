import UserFiles
import ArgumentParser
import Plugins

struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the installed LV2 and CLAP plugins: URI (clap:ID), name, class, audio and MIDI ports, and each control.",
        discussion: "LV2: where lilv looks (LV2_PATH when set, else ~/.lv2, /usr/lib/lv2 …). CLAP: CLAP_PATH, then ~/.clap, then /usr/lib/clap.")

    @Flag(help: "Print JSON.") var json = false
    @Option(help: "Only plugins whose URI, name or class contains this text (any case).") var filter: String?
    @Option(help: "One plugin by its URI (an unknown URI names the closest installed ones).", completion: Completions.pluginURIs) var uri: String?
    @Option(help: ArgumentHelp("The plugin's own presets, a line each: the name a preset's `preset:` takes, a tab, its URI (LV2) or its file or `plugin` and load key (CLAP).", valueName: "URI"),
            completion: Completions.pluginURIs) var presets: String?

    func run() throws {
        let catalog = PluginCatalog()
        if let presets {
            do { _ = try catalog.plugin(uri: presets) } catch let error as InputError { throw fail(error) }
            let found = PluginWorld.shared.presets(of: presets)
            if json { return try printJSON(found.map { ["name": $0.name, "uri": $0.uri] }) }
            for preset in found { print("\(preset.name)\t\(preset.uri)") }
            return
        }
        var plugins = catalog.plugins
        if let uri {
            do { plugins = [try catalog.plugin(uri: uri)] } catch let error as InputError { throw fail(error) }
        }
        if let filter { plugins = plugins.filter { $0.matches(filter) } }
        if json { return try printJSON(plugins) }
        for line in plugins.flatMap(\.listing) { print(line) }
    }
}
