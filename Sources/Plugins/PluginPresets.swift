import CLV2
import CLilv
import Foundation

/// One of a plugin's own presets (LV2's `pset:Preset`): its name (`rdfs:label`) and URI; a CLAP
/// plugin's: its name, and its file or "plugin" with its load key (`CLAPWorld.Preset.reference`).
package struct PluginPreset: Sendable, Equatable {
    package let name: String
    package let uri: String
}

/// A plugin's own presets through lilv: listed, and one loaded into an instance before it is
/// activated — its port values, and any state of the plugin's own it carries — as a saved
/// state is (`PluginState`); an isolated plugin takes its port values (the presets here carry
/// nothing else). Control thread.
extension PluginWorld {
    /// The presets of `uri` (none for an unknown plugin), by name.
    package func presets(of uri: String) -> [PluginPreset] {
        if let id = CLAPWorld.id(of: uri) { return CLAPWorld.presets(of: id).map { PluginPreset(name: $0.name, uri: $0.reference) } }
        return withWorld { world in
            guard let plugin = Self.plugin(uri, in: world) else { return [] }
            let kind = lilv_new_uri(world, "http://lv2plug.in/ns/ext/presets#Preset")
            let label = lilv_new_uri(world, "http://www.w3.org/2000/01/rdf-schema#label")
            defer { lilv_node_free(kind); lilv_node_free(label) }
            guard let related = lilv_plugin_get_related(plugin, kind) else { return [] }
            defer { lilv_nodes_free(related) }
            var found: [PluginPreset] = []
            var iterator = lilv_nodes_begin(related)
            while !lilv_nodes_is_end(related, iterator) {
                if let node = lilv_nodes_get(related, iterator) {
                    lilv_world_load_resource(world, node)
                    let names = lilv_world_find_nodes(world, node, label, nil)
                    let name = Self.nodeStrings(names).first ?? Self.string(node)
                    lilv_nodes_free(names)
                    found.append(PluginPreset(name: name, uri: Self.string(node)))
                }
                iterator = lilv_nodes_next(related, iterator)
            }
            return found.sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
        } ?? []
    }
}

extension PluginInstance {
    /// Before `activate`: the preset named `name` (or with that URI), its port values set and
    /// its own state restored; an unknown name is one error listing the plugin's presets.
    func loadPreset(_ name: String) throws {
        if let id = CLAPWorld.id(of: uri) {
            let presets = CLAPWorld.presets(of: id)
            guard let preset = presets.first(where: { $0.name == name }) ?? presets.first(where: { $0.reference == name }) else {
                throw PluginError("\(self.name) (\(uri)) has no preset '\(name)'; \(Self.known(presets.map(\.name)))", field: "preset")
            }
            return try loadCLAPPreset(preset, id: id)
        }
        let presets = PluginWorld.shared.presets(of: uri)
        guard let preset = presets.first(where: { $0.name == name }) ?? presets.first(where: { $0.uri == name }) else {
            throw PluginError("\(self.name) (\(uri)) has no preset '\(name)'; \(Self.known(presets.map(\.name)))", field: "preset")
        }
        let loaded: Bool? = PluginWorld.shared.withWorldOfPluginCode { world in
            guard let node = lilv_new_uri(world, preset.uri) else { return false }
            defer { lilv_node_free(node) }
            guard let state = lilv_state_new_from_world(world, pj_host_map(host), node) else { return false }
            defer { lilv_state_free(state) }
            restore(state)
            return true
        }
        guard loaded == true else { throw PluginError("\(self.name): its preset '\(name)' (\(preset.uri)) is not one lilv can read", field: "preset") }
    }

    /// The presets a plugin has, for an error.
    static func known(_ names: [String]) -> String {
        names.isEmpty ? "it has none" : "its presets: " + names.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// Before `activate`: `controls` (by symbol, checked when the preset was read) over what a
    /// preset set, as a preset's `controls:` say.
    func setControls(_ controls: [String: Float]) {
        for port in ports where port.kind == .control && port.isInput {
            guard let value = controls[port.symbol] else { continue }
            controlValues[Int(port.index)] = value
            controlSnapshot[Int(port.index)] = value
        }
    }
}
