import CLV2
import CLilv
import Foundation
import Realtime

/// lilv's world: every installed LV2 plugin's description, loaded once per process off the
/// real-time thread from the standard locations or `LV2_PATH`. lilv is not thread-safe, so every
/// use goes through `withWorld`. Control thread.
package final class PluginWorld: Sendable {
    package static let shared = PluginWorld()

    /// lilv's world, used only under the box's lock.
    private let world: LockedBox<World>
    private struct World: @unchecked Sendable {  // @unchecked: a C pointer, reached only inside `world`'s lock.
        let pointer: OpaquePointer?
    }
    /// What lilv (and serd under it) printed: it writes parse errors to stderr, which would
    /// bury our one-line errors, so they are kept here instead (see `diagnostics(mentioning:)`).
    /// Taken inside `world`'s lock or alone, never the other way round.
    private let printed: LockedBox<[String]>

    private init() {
        let pointer = lilv_world_new()
        world = LockedBox(World(pointer: pointer))
        printed = LockedBox(pointer.map { world in Self.capturingStandardError { lilv_world_load_all(world) }.printed } ?? [])
    }

    /// Runs `body` with the world, alone, for reading plugin descriptions (never plugin code).
    /// lilv loads plugin data lazily, so anything it prints meanwhile (a Turtle error) is captured
    /// too: lilv 0.24 has no log feature, so its standard error is borrowed around the parsing.
    func withWorld<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T? {
        try world.withLockedValue { world in
            guard let pointer = world.pointer else { return nil }
            let (result, lines) = try Self.capturingStandardError { try body(pointer) }
            printed.withLockedValue { $0 += lines }
            return result
        }
    }

    /// Runs `body` with the world, alone, leaving the standard error alone: for plugin code
    /// (loading a library, instantiate, state save and restore), whose messages and crash report
    /// must reach the terminal.
    func withWorldOfPluginCode<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T? {
        try world.withLockedValue { world in
            guard let pointer = world.pointer else { return nil }
            return try body(pointer)
        }
    }

    /// lilv's messages so far that mention `text` (a bundle's path).
    func diagnostics(mentioning text: String) -> [String] {
        printed.withLockedValue { $0.filter { $0.contains(text) } }
    }

    /// Runs `body` with file descriptor 2 on a temporary file; what was written there, by line.
    /// Offline. Nothing else prints meanwhile.
    private static func capturingStandardError<T>(_ body: () throws -> T) rethrows -> (result: T, printed: [String]) {
        var template = Array("/tmp/pulsejack-lilv-XXXXXX".utf8CString)
        let file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard file >= 0 else { return (try body(), []) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(path)
        fflush(nil)
        let saved = dup(2)
        dup2(file, 2)
        defer {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
        }
        let result = try body()
        fflush(nil)
        var text = Data()
        lseek(file, 0, SEEK_SET)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(file, &chunk, chunk.count)
            guard count > 0 else { break }
            text.append(contentsOf: chunk[0..<count])
        }
        close(file)
        return (result, String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// The plugin at `uri` in `world`, if installed.
    static func plugin(_ uri: String, in world: OpaquePointer) -> OpaquePointer? {
        guard let node = lilv_new_uri(world, uri) else { return nil }
        defer { lilv_node_free(node) }
        return lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), node)
    }

    /// Control thread. With the world held: the first feature or required option the plugin
    /// needs that pulsejack does not offer, or nil.
    static func unsupportedRequirement(of plugin: OpaquePointer, in world: OpaquePointer) -> String? {
        let features = Set(strings(pj_host_supported_features()))
        let required = lilv_plugin_get_required_features(plugin)
        defer { lilv_nodes_free(required) }
        for feature in nodeStrings(required) where !features.contains(feature) { return feature }
        let options = Set(strings(pj_host_supported_options()))
        let predicate = lilv_new_uri(world, pj_lv2_required_option())
        defer { lilv_node_free(predicate) }
        let requiredOptions = lilv_plugin_get_value(plugin, predicate)
        defer { lilv_nodes_free(requiredOptions) }
        for option in nodeStrings(requiredOptions) where !options.contains(option) { return "option \(option)" }
        return nil
    }

    static func strings(_ list: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        var result: [String] = []
        guard var cursor = list else { return result }
        while let text = cursor.pointee {
            result.append(String(cString: text))
            cursor += 1
        }
        return result
    }

    static func nodeStrings(_ nodes: UnsafeMutableRawPointer?) -> [String] {
        guard let nodes else { return [] }
        var result: [String] = []
        var iterator = lilv_nodes_begin(nodes)
        while !lilv_nodes_is_end(nodes, iterator) {
            if let node = lilv_nodes_get(nodes, iterator), let text = lilv_node_as_string(node) { result.append(String(cString: text)) }
            iterator = lilv_nodes_next(nodes, iterator)
        }
        return result
    }

    static func string(_ node: OpaquePointer?) -> String {
        guard let node, let text = lilv_node_as_string(node) else { return "" }
        return String(cString: text)
    }

    static func allURIs(in world: OpaquePointer) -> [String] {
        let all = lilv_world_get_all_plugins(world)
        var uris: [String] = []
        var iterator = lilv_plugins_begin(all)
        while !lilv_plugins_is_end(all, iterator) {
            if let plugin = lilv_plugins_get(all, iterator) { uris.append(string(lilv_plugin_get_uri(plugin))) }
            iterator = lilv_plugins_next(all, iterator)
        }
        return uris
    }

    /// Whether the plugin lists `feature` (required or optional).
    static func hasFeature(_ plugin: OpaquePointer, _ feature: UnsafePointer<CChar>, in world: OpaquePointer) -> Bool {
        let node = lilv_new_uri(world, feature)
        defer { lilv_node_free(node) }
        return lilv_plugin_has_feature(plugin, node)
    }

    /// The output control port designated `lv2:latency` (or marked `reportsLatency`), if any.
    static func latencyPort(of plugin: OpaquePointer, in world: OpaquePointer) -> UInt32? {
        let output = lilv_new_uri(world, pj_lv2_output_port()), designation = lilv_new_uri(world, pj_lv2_latency_designation())
        defer { lilv_node_free(output); lilv_node_free(designation) }
        if let port = lilv_plugin_get_port_by_designation(plugin, output, designation) {
            return lilv_port_get_index(plugin, port)
        }
        let reports = lilv_new_uri(world, pj_lv2_reports_latency())
        defer { lilv_node_free(reports) }
        for index in 0..<lilv_plugin_get_num_ports(plugin) {
            if let port = lilv_plugin_get_port_by_index(plugin, index), lilv_port_has_property(plugin, port, reports),
               lilv_port_is_a(plugin, port, output) {
                return index
            }
        }
        return nil
    }

    /// Every port, classified (the listing and the host both read this).
    static func ports(of plugin: OpaquePointer, in world: OpaquePointer) -> [PluginPort] {
        let uri = { (text: UnsafePointer<CChar>) in lilv_new_uri(world, text) }
        let audio = uri(pj_lv2_audio_port()), control = uri(pj_lv2_control_port()), input = uri(pj_lv2_input_port())
        let atom = uri(pj_lv2_atom_port()), event = uri(pj_lv2_event_port()), cv = uri(pj_lv2_cv_port())
        let midi = uri(pj_lv2_midi_event()), optional = uri(pj_lv2_connection_optional()), time = uri(pj_lv2_time_position())
        let integer = uri("http://lv2plug.in/ns/lv2core#integer"), toggled = uri("http://lv2plug.in/ns/lv2core#toggled")
        let enumeration = uri("http://lv2plug.in/ns/lv2core#enumeration")
        defer { for node in [audio, control, input, atom, event, cv, midi, optional, time, integer, toggled, enumeration] { lilv_node_free(node) } }
        var ports: [PluginPort] = []
        for index in 0..<lilv_plugin_get_num_ports(plugin) {
            guard let port = lilv_plugin_get_port_by_index(plugin, index) else { continue }
            let nameNode = lilv_port_get_name(plugin, port)
            defer { lilv_node_free(nameNode) }
            var described = PluginPort(index: index, symbol: string(lilv_port_get_symbol(plugin, port)), name: string(nameNode),
                                       kind: .unknown, isInput: lilv_port_is_a(plugin, port, input),
                                       optional: lilv_port_has_property(plugin, port, optional))
            if lilv_port_is_a(plugin, port, audio) {
                described.kind = .audio
            } else if lilv_port_is_a(plugin, port, control) {
                described.kind = .control
                var minimum: OpaquePointer?, maximum: OpaquePointer?, fallback: OpaquePointer?
                lilv_port_get_range(plugin, port, &fallback, &minimum, &maximum)
                described.minimum = number(minimum) ?? .nan
                described.maximum = number(maximum) ?? .nan
                described.defaultValue = number(fallback) ?? .nan
                lilv_node_free(fallback); lilv_node_free(minimum); lilv_node_free(maximum)
                described.checkRange()
                described.isInteger = lilv_port_has_property(plugin, port, integer)
                described.isToggled = lilv_port_has_property(plugin, port, toggled)
                if lilv_port_has_property(plugin, port, enumeration) { described.scalePoints = scalePoints(of: port, in: plugin) }
            } else if lilv_port_is_a(plugin, port, atom) || lilv_port_is_a(plugin, port, event) {
                described.kind = lilv_port_is_a(plugin, port, atom) ? .atom : .event
                described.carriesMIDI = lilv_port_supports_event(plugin, port, midi)
                described.takesTime = described.kind == .atom && lilv_port_supports_event(plugin, port, time)
            } else if lilv_port_is_a(plugin, port, cv) {
                described.kind = .cv
            }
            ports.append(described)
        }
        return ports
    }

    /// The values of a port's scale points, in order.
    static func scalePoints(of port: OpaquePointer, in plugin: OpaquePointer) -> [Float] {
        guard let points = lilv_port_get_scale_points(plugin, port) else { return [] }
        defer { lilv_scale_points_free(points) }
        var values: [Float] = []
        var iterator = lilv_scale_points_begin(points)
        while !lilv_scale_points_is_end(points, iterator) {
            if let point = lilv_scale_points_get(points, iterator), let value = number(lilv_scale_point_get_value(point)), value.isFinite {
                values.append(value)
            }
            iterator = lilv_scale_points_next(points, iterator)
        }
        return values.sorted()
    }

    /// A number from the plugin's data, read as written: one beyond the float range comes back
    /// ±Inf (lilv's own conversion would hide that), for the caller to refuse.
    static func number(_ node: OpaquePointer?) -> Float? {
        guard let node, lilv_node_is_float(node) || lilv_node_is_int(node) else { return nil }
        if let text = lilv_node_as_string(node), let value = Double(String(cString: text)) { return Float(value) }
        return lilv_node_as_float(node)
    }

    /// Whether the plugin's description holds a default state (`state:state`).
    static func hasDefaultState(_ plugin: OpaquePointer, in world: OpaquePointer) -> Bool {
        let predicate = lilv_new_uri(world, "http://lv2plug.in/ns/ext/state#state")
        defer { lilv_node_free(predicate) }
        let values = lilv_plugin_get_value(plugin, predicate)
        defer { lilv_nodes_free(values) }
        return lilv_nodes_size(values) > 0
    }

    /// Why lilv would fail to instantiate `plugin`, read without running its code beyond its
    /// library's loading: the library missing, not loadable (the loader's words), or without
    /// `lv2_descriptor`, or not describing `uri`. nil when none of these.
    static func libraryProblem(of plugin: OpaquePointer, uri: String) -> String? {
        guard let libraryNode = lilv_plugin_get_library_uri(plugin), let text = lilv_node_as_uri(libraryNode),
              let parsed = lilv_file_uri_parse(text, nil) else { return "its description names no library" }
        let path = String(cString: parsed)
        lilv_free(parsed)
        guard FileManager.default.fileExists(atPath: path) else { return "its library \(path) does not exist" }
        guard let library = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            return "its library does not load (\(dlerror().map { String(cString: $0) } ?? path))"
        }
        defer { dlclose(library) }
        guard let symbol = dlsym(library, "lv2_descriptor") else { return "no 'lv2_descriptor' in \(path)" }
        typealias DescriptorFunction = @convention(c) (UInt32) -> UnsafePointer<LV2_Descriptor>?
        let descriptor = unsafeBitCast(symbol, to: DescriptorFunction.self)
        for index in 0..<UInt32(4096) {
            guard let found = descriptor(index) else { break }
            if let found = found.pointee.URI, String(cString: found) == uri { return nil }
        }
        return "\(path) does not describe \(uri) (its lv2_descriptor lists other plugins)"
    }
}
