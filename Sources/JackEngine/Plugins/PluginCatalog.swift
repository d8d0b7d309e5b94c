import CLV2
import CLilv
import Control
import Foundation

/// One installed LV2 plugin as lilv describes it: what the `plugins` listing shows and what a
/// preset refers to by URI.
public struct PluginDescription: Codable, Sendable {
    public struct Control: Codable, Sendable {
        public var symbol: String
        public var name: String
        public var minimum: Float?
        public var maximum: Float?
        public var `default`: Float?
        /// An output (a meter, a latency report) rather than a setting.
        public var output: Bool
    }

    public var uri: String
    public var name: String
    public var pluginClass: String
    public var audioInputs: Int
    public var audioOutputs: Int
    /// Atom (or old event) ports that take MIDI in, and that send it.
    public var midiInputs: Int
    public var midiOutputs: Int
    public var controls: [Control]
    /// Host features the plugin cannot run without.
    public var requiredFeatures: [String]

    /// Whether its URI, name or class contains `text` (any case).
    public func matches(_ text: String) -> Bool {
        [uri, name, pluginClass].contains { $0.range(of: text, options: .caseInsensitive) != nil }
    }

    enum CodingKeys: String, CodingKey {
        case uri, name, controls
        case pluginClass = "class", audioInputs = "audio_inputs", audioOutputs = "audio_outputs"
        case midiInputs = "midi_inputs", midiOutputs = "midi_outputs", requiredFeatures = "required_features"
    }
}

/// The installed LV2 plugins: lilv's world, loaded once off the real-time thread from the
/// standard locations or `LV2_PATH` (lilv reads it). Control thread.
public final class PluginCatalog {
    public let plugins: [PluginDescription]

    /// The process's one world (`PluginWorld`), so lilv's own messages are kept off the terminal.
    public init() {
        plugins = (PluginWorld.shared.withWorld { Self.describe(world: $0) } ?? []).sorted { $0.uri < $1.uri }
    }

    /// The plugin at `uri`, or an error that names the closest installed URIs.
    public func plugin(uri: String) throws -> PluginDescription {
        if let found = plugins.first(where: { $0.uri == uri }) { return found }
        let closest = plugins.map(\.uri).sorted { Self.distance($0, uri) < Self.distance($1, uri) }.prefix(3)
        throw InputError(file: uri, closest.isEmpty
            ? "no such LV2 plugin (none are installed here; LV2_PATH lists where to look)"
            : "no such LV2 plugin; the closest installed: \(closest.joined(separator: ", "))")
    }


    private static func describe(world: OpaquePointer) -> [PluginDescription] {
        let uris = (audio: lilv_new_uri(world, pj_lv2_audio_port()), control: lilv_new_uri(world, pj_lv2_control_port()),
                    input: lilv_new_uri(world, pj_lv2_input_port()), output: lilv_new_uri(world, pj_lv2_output_port()),
                    atom: lilv_new_uri(world, pj_lv2_atom_port()), event: lilv_new_uri(world, pj_lv2_event_port()),
                    supports: lilv_new_uri(world, pj_lv2_atom_supports()), midi: lilv_new_uri(world, pj_lv2_midi_event()))
        defer {
            for node in [uris.audio, uris.control, uris.input, uris.output, uris.atom, uris.event, uris.supports, uris.midi] {
                lilv_node_free(node)
            }
        }
        var described: [PluginDescription] = []
        let all = lilv_world_get_all_plugins(world)
        var iterator = lilv_plugins_begin(all)
        while !lilv_plugins_is_end(all, iterator) {
            defer { iterator = lilv_plugins_next(all, iterator) }
            guard let plugin = lilv_plugins_get(all, iterator) else { continue }
            let name = lilv_plugin_get_name(plugin)
            defer { lilv_node_free(name) }
            let pluginClass = lilv_plugin_class_get_label(lilv_plugin_get_class(plugin))
            var description = PluginDescription(
                uri: PluginWorld.string(lilv_plugin_get_uri(plugin)), name: PluginWorld.string(name), pluginClass: PluginWorld.string(pluginClass),
                audioInputs: 0, audioOutputs: 0, midiInputs: 0, midiOutputs: 0, controls: [],
                requiredFeatures: [])
            let required = lilv_plugin_get_required_features(plugin)
            description.requiredFeatures = PluginWorld.nodeStrings(required).sorted()
            lilv_nodes_free(required)
            for index in 0..<lilv_plugin_get_num_ports(plugin) {
                guard let port = lilv_plugin_get_port_by_index(plugin, index) else { continue }
                let isInput = lilv_port_is_a(plugin, port, uris.input)
                if lilv_port_is_a(plugin, port, uris.audio) {
                    if isInput { description.audioInputs += 1 } else { description.audioOutputs += 1 }
                } else if lilv_port_is_a(plugin, port, uris.control) {
                    var minimum: OpaquePointer?, maximum: OpaquePointer?, fallback: OpaquePointer?
                    lilv_port_get_range(plugin, port, &fallback, &minimum, &maximum)
                    defer { lilv_node_free(fallback); lilv_node_free(minimum); lilv_node_free(maximum) }
                    let portName = lilv_port_get_name(plugin, port)
                    defer { lilv_node_free(portName) }
                    description.controls.append(.init(symbol: PluginWorld.string(lilv_port_get_symbol(plugin, port)), name: PluginWorld.string(portName),
                                                      minimum: PluginWorld.number(minimum), maximum: PluginWorld.number(maximum),
                                                      default: PluginWorld.number(fallback), output: !isInput))
                } else if lilv_port_is_a(plugin, port, uris.atom) || lilv_port_is_a(plugin, port, uris.event) {
                    let isMIDI = lilv_port_supports_event(plugin, port, uris.midi)
                    if isMIDI { if isInput { description.midiInputs += 1 } else { description.midiOutputs += 1 } }
                }
            }
            described.append(description)
        }
        return described
    }

    /// Edit distance (Levenshtein), for suggesting the URI meant.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for (i, byte) in a.enumerated() {
            var current = [i + 1]
            for (j, other) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (byte == other ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
