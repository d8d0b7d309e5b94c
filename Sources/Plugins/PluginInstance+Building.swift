import CLV2
import CLilv
import Foundation
import Realtime

/// Making an instance, on the control thread: the plugin described from lilv's world (no plugin
/// code), instantiated in this process or hosted by a child, its controls' starting values and
/// its ports connected to their buffers.
extension PluginInstance {
    /// The plugin as lilv's world describes it, its controls checked.
    static func described(_ uri: String, controls: [String: Float]) throws -> Description {
        var failure: PluginError?
        var described: Description?
        _ = PluginWorld.shared.withWorld { world in
            do { described = try Self.describe(uri, in: world, controls: controls) } catch let error as PluginError {
                failure = error
            } catch {}
        }
        guard let described else { throw failure ?? PluginError("\(uri): LV2 is not available here (lilv could not load its world)") }
        return described
    }

    /// What `init` makes: the plugin described, and hosted here (LV2's instance, or CLAP's) or in a child.
    struct Made {
        var described: Description
        var isolation: PluginProcess?
        var instance: UnsafeMutablePointer<LilvInstance>?
        var clap: OpaquePointer?
        var isCLAP = false
        var parameters = 0
        var parameterBase = 0
    }

    /// `uri` (an LV2 URI, or `clap:ID`) described and hosted.
    static func made(_ uri: String, controls: [String: Float], sampleRate: Int, maxFrames: Int, offline: Bool, stateFolder: String?,
                     isolate: Bool, host: OpaquePointer) throws -> Made {
        guard let id = CLAPWorld.id(of: uri) else {
            let described = try Self.described(uri, controls: controls)
            let hosted = try Self.hosted(described, uri: uri, sampleRate: sampleRate, maxFrames: maxFrames, offline: offline,
                                         stateFolder: stateFolder, isolate: isolate, host: host)
            return Made(described: described, isolation: hosted.isolation, instance: hosted.instance)
        }
        if isolate {
            // Described by a child of its own, so that none of its code runs in the engine.
            let layout = try CLAPWorld.isolatedLayout(id, controls: controls)
            let process = try PluginProcess(plugin: .init(uri: uri, sampleRate: sampleRate, maxFrames: maxFrames, offline: offline,
                                                          filesFolder: stateFolder), portCount: layout.description.ports.count)
            return Made(described: layout.description, isolation: process, isCLAP: true, parameters: layout.parameters,
                        parameterBase: layout.parameterBase)
        }
        let (plugin, layout) = try makeCLAP(id, controls: controls, maxFrames: maxFrames, host: host)
        return Made(described: layout.description, clap: plugin, isCLAP: true, parameters: layout.parameters, parameterBase: layout.parameterBase)
    }

    /// The plugin's instance in this process, or its child process when isolated.
    static func hosted(_ described: Description, uri: String, sampleRate: Int, maxFrames: Int, offline: Bool, stateFolder: String?,
                               isolate: Bool, host: OpaquePointer) throws -> (isolation: PluginProcess?, instance: UnsafeMutablePointer<LilvInstance>?) {
        if isolate {
            return (try PluginProcess(plugin: .init(uri: uri, sampleRate: sampleRate, maxFrames: maxFrames, offline: offline,
                                                    filesFolder: stateFolder), portCount: described.ports.count), nil)
        }
        // Plugin code from here: its library's constructors, instantiate() and restore() print
        // to the terminal as they will, and a crash there is the last line the user reads.
        Self.announce("loading LV2 plugin \(described.name) (\(uri))")
        var made: UnsafeMutablePointer<LilvInstance>?
        _ = PluginWorld.shared.withWorldOfPluginCode { world in
            made = Self.instantiate(uri, described: described, in: world, sampleRate: sampleRate, host: host)
        }
        guard let made else {
            let problem = PluginWorld.shared.withWorldOfPluginCode { world in
                PluginWorld.plugin(uri, in: world).flatMap { PluginWorld.libraryProblem(of: $0, uri: uri) }
            }
            throw PluginError("\(described.name) (\(uri)) could not be instantiated: \((problem ?? nil) ?? "its instantiate() returned nothing")")
        }
        return (nil, made)
    }

    /// Controls: the defaults (checked: a default outside its range is clamped, a non-finite
    /// one refused), then the preset's values (checked before instantiating).
    static func setStartingControls(_ values: borrowing FixedBuffer<Float>, of ports: [PluginPort], given controls: [String: Float],
                                            name: String) -> [String] {
        var warnings: [String] = []
        for port in ports where port.kind == .control {
            let (value, problem) = port.checkedDefault
            if let problem, port.isInput { warnings.append("\(name): \(problem)") }
            values[Int(port.index)] = controls[port.symbol] ?? value
        }
        return warnings
    }

    /// Every port of an instance in this process connected to its buffer; the atom ports other
    /// than the MIDI input, whose buffers are made here, and the one that takes the host's time
    /// (the MIDI input's when it is that port).
    static func connectInProcess(_ ports: [PluginPort], of instance: UnsafeMutablePointer<LilvInstance>?,
                                 controls: borrowing FixedBuffer<Float>, scratch: borrowing FixedBuffer<Float>, midiPort: UInt32?,
                                 midiInput: AtomSequence.Box?, timePort: UInt32?, sequenceType: UInt32,
                                 chunkType: UInt32) -> (others: [AtomSequence.Box], time: AtomSequence.Box?) {
        var others: [AtomSequence.Box] = [], time: AtomSequence.Box?
        for port in ports {
            switch port.kind {
            case .control:
                lilv_instance_connect_port(instance, port.index, controls.pointer + Int(port.index))
            case .cv, .audio:
                lilv_instance_connect_port(instance, port.index, scratch.pointer)
            case .atom:
                if port.index == midiPort, let midiInput {
                    lilv_instance_connect_port(instance, port.index, midiInput.sequence.pointer)
                    midiInput.reset()
                    if port.index == timePort { time = midiInput }
                } else {
                    let box = AtomSequence.Box(AtomSequence(capacityBytes: Self.sequenceBytes, sequenceType: sequenceType,
                                                            chunkType: chunkType), isInput: port.isInput)
                    lilv_instance_connect_port(instance, port.index, box.sequence.pointer)
                    box.reset()
                    others.append(box)
                    if port.index == timePort { time = box }
                }
            case .event, .unknown:
                break  // optional (a plugin needing one is refused): left unconnected, as it allows
            }
        }
        return (others, time)
    }

    static func workerInterface(_ instance: UnsafeMutablePointer<LilvInstance>) -> UnsafePointer<LV2_Worker_Interface>? {
        lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)
    }

    /// What `describe` found out about a plugin before instantiating it.
    struct Description {
        var name: String
        var ports: [PluginPort]
        var coarse: Bool
        var latency: UInt32?
        /// Whether its description holds a default state (`state:state`) to restore.
        var hasDefaultState: Bool
    }

    /// Says it on the terminal at once (before plugin code that may crash runs).
    static func announce(_ line: String) {
        // Straight to the file descriptor (unbuffered): nothing is left in a buffer if a crash follows.
        FileHandle.standardError.write(Data("pulsejack: \(line)\n".utf8))
    }

    /// With the world held: finds and checks `uri` and its controls, without running plugin code.
    static func describe(_ uri: String, in world: OpaquePointer, controls: [String: Float]) throws -> Description {
        guard let plugin = PluginWorld.plugin(uri, in: world) else {
            let closest = PluginCatalog.closest(to: uri, among: PluginWorld.allURIs(in: world))
            throw PluginError(closest.isEmpty ? "no LV2 plugin \(uri) (none are installed here; LV2_PATH lists where to look)"
                                              : "no LV2 plugin \(uri); the closest installed: \(closest.joined(separator: ", "))")
        }
        let bundle = PluginWorld.string(lilv_plugin_get_bundle_uri(plugin))
        guard lilv_plugin_verify(plugin) else {
            let folder = URL(string: bundle)?.path ?? bundle
            let reason = PluginWorld.shared.diagnostics(mentioning: folder).first { $0.contains(":") && !$0.hasPrefix("lilv_") }
            throw PluginError("\(uri) in \(folder) is not a valid plugin description"
                              + (reason.map { " (\($0.trimmingCharacters(in: .whitespaces)))" } ?? " (broken Turtle, or no binary)"))
        }
        let nameNode = lilv_plugin_get_name(plugin)
        let name = PluginWorld.string(nameNode)
        lilv_node_free(nameNode)
        if let missing = PluginWorld.unsupportedRequirement(of: plugin, in: world) {
            throw PluginError("\(name) (\(uri)) requires \(missing), which pulsejack does not offer")
        }
        let ports = PluginWorld.ports(of: plugin, in: world)
        for port in ports where !port.optional && (port.kind == .event || port.kind == .unknown) {
            throw PluginError(port.kind == .event
                ? "\(name) has an old-style event port '\(port.symbol)' (LV2 event extension), which pulsejack does not host"
                : "\(name)'s port '\(port.symbol)' is of a type pulsejack cannot connect")
        }
        try checkControls(controls, among: ports, name: name, uri: uri)
        return Description(name: name, ports: ports, coarse: PluginWorld.hasFeature(plugin, pj_lv2_coarse_block_length(), in: world),
                           latency: PluginWorld.latencyPort(of: plugin, in: world),
                           hasDefaultState: PluginWorld.hasDefaultState(plugin, in: world))
    }

    /// With the world held: instantiates `uri`, restoring its default state if it has one (as
    /// `state:loadDefaultState` asks; a plugin without one is never restored). Plugin code.
    static func instantiate(_ uri: String, described: Description, in world: OpaquePointer, sampleRate: Int,
                                    host: OpaquePointer) -> UnsafeMutablePointer<LilvInstance>? {
        guard let plugin = PluginWorld.plugin(uri, in: world),
              let instance = lilv_plugin_instantiate(plugin, Double(sampleRate), pj_host_features(host)) else { return nil }
        if described.hasDefaultState {
            let pluginNode = lilv_new_uri(world, uri)
            if let state = lilv_state_new_from_world(world, pj_host_map(host), pluginNode) {
                lilv_state_restore(state, instance, nil, nil, 0, pj_host_features(host))
                lilv_state_free(state)
            }
            lilv_node_free(pluginNode)
        }
        return instance
    }
}
