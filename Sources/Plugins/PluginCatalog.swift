import UserFiles
import CLV2
import CLilv
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

extension PluginDescription {
    /// `pulsejack plugins` as text: the URI, then its name, class and ports, each control, what it requires.
    public var listing: [String] {
        let midi = midiInputs + midiOutputs > 0 ? ", MIDI \(midiInputs) in / \(midiOutputs) out" : ""
        var lines = ["\(uri)\n  \(name) (\(pluginClass)): audio \(audioInputs) in / \(audioOutputs) out\(midi)"]
        func show(_ value: Float?) -> String { value.map { String(format: "%g", $0) } ?? "?" }
        for control in controls {
            lines.append("  \(control.output ? "out" : "in ") \(control.symbol.padding(toLength: 14, withPad: " ", startingAt: 0)) "
                         + "\(show(control.minimum))…\(show(control.maximum)), default \(show(control.default))  \(control.name)")
        }
        if !requiredFeatures.isEmpty { lines.append("  requires \(requiredFeatures.joined(separator: ", "))") }
        return lines
    }
}

/// The installed plugins, LV2 then CLAP (`clap:ID`, `PluginCatalog+CLAP`). LV2's: lilv's world, loaded once off the real-time thread from the
/// standard locations or `LV2_PATH` (lilv reads it). Control thread.
public final class PluginCatalog {
    public let plugins: [PluginDescription]

    /// The process's one world (`PluginWorld`), so lilv's own messages are kept off the terminal.
    /// `includingCLAP`: each CLAP plugin made once to read its parameters (completions need only ids).
    public init(includingCLAP: Bool = true) {
        plugins = (PluginWorld.shared.withWorld { Self.describe(world: $0) } ?? []).sorted { $0.uri < $1.uri }
            + (includingCLAP ? Self.clapDescriptions() : [])
    }

    /// The plugin at `uri`, or an error that names the closest installed URIs.
    public func plugin(uri: String) throws -> PluginDescription {
        if let found = plugins.first(where: { $0.uri == uri }) { return found }
        let closest = Self.closest(to: uri, among: plugins.map(\.uri))
        throw InputError(file: uri, closest.isEmpty
            ? "no such plugin (none are installed here; LV2_PATH and CLAP_PATH list where to look)"
            : "no such plugin; the closest installed: \(closest.joined(separator: ", "))")
    }


    private static func describe(world: OpaquePointer) -> [PluginDescription] {
        var described: [PluginDescription] = []
        let all = lilv_world_get_all_plugins(world)
        var iterator = lilv_plugins_begin(all)
        while !lilv_plugins_is_end(all, iterator) {
            defer { iterator = lilv_plugins_next(all, iterator) }
            guard let plugin = lilv_plugins_get(all, iterator) else { continue }
            let name = lilv_plugin_get_name(plugin)
            defer { lilv_node_free(name) }
            let required = lilv_plugin_get_required_features(plugin)
            defer { lilv_nodes_free(required) }
            let ports = PluginWorld.ports(of: plugin, in: world)
            func count(_ kinds: [PluginPort.Kind], input: Bool, midi: Bool = false) -> Int {
                ports.filter { kinds.contains($0.kind) && $0.isInput == input && (!midi || $0.carriesMIDI) }.count
            }
            described.append(PluginDescription(
                uri: PluginWorld.string(lilv_plugin_get_uri(plugin)), name: PluginWorld.string(name),
                pluginClass: PluginWorld.string(lilv_plugin_class_get_label(lilv_plugin_get_class(plugin))),
                audioInputs: count([.audio], input: true), audioOutputs: count([.audio], input: false),
                midiInputs: count([.atom, .event], input: true, midi: true), midiOutputs: count([.atom, .event], input: false, midi: true),
                controls: ports.filter { $0.kind == .control }.map {
                    .init(symbol: $0.symbol, name: $0.name, minimum: PluginPort.given($0.minimum), maximum: PluginPort.given($0.maximum),
                          default: PluginPort.given($0.defaultValue), output: !$0.isInput)
                },
                requiredFeatures: PluginWorld.nodeStrings(required).sorted()))
        }
        return described
    }

    /// The three installed URIs closest to `uri` (edit distance), for "did you mean".
    package static func closest(to uri: String, among installed: [String]) -> [String] {
        Array(installed.sorted { distance($0, uri) < distance($1, uri) }.prefix(3))
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
