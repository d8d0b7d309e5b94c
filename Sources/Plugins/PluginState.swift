import CLV2
import CLilv
import Foundation

/// A hosted plugin's state on disk (LV2 state through lilv): its port values and whatever the
/// plugin keeps itself (a loaded sample, a kit), in `<folder>/state.ttl` with the files it names.
/// A session manager's save writes one folder per instance inside the session folder; opening
/// the session, and rendering it, restore them. Control thread.
extension PluginInstance {
    static let stateFile = "state.ttl"

    /// Before `activate`: the saved state in `folder` (port values and the plugin's own).
    func restoreState(from folder: String) throws {
        if CLAPWorld.id(of: uri) != nil { return try restoreCLAPState(from: folder) }
        let file = URL(fileURLWithPath: folder).appendingPathComponent(Self.stateFile).path
        guard FileManager.default.fileExists(atPath: file) else {
            throw PluginError("\(name): no saved state at \(file)", field: "state")
        }
        var restored = false
        var foreign: String?
        _ = PluginWorld.shared.withWorldOfPluginCode { world in
            guard let state = lilv_state_new_from_file(world, pj_host_map(host), nil, file) else { return }
            defer { lilv_state_free(state) }
            // `lv2:appliesTo`: a state saved for another plugin is refused, not applied.
            if let appliesTo = lilv_state_get_plugin_uri(state), let text = lilv_node_as_uri(appliesTo), String(cString: text) != uri {
                foreign = String(cString: text)
                return
            }
            restore(state)
            restored = true
        }
        // The two URIs before the path, so a long path never clips them from the error line.
        if let foreign { throw PluginError("\(name) (\(uri)) cannot take a state saved for \(foreign): \(file)", field: "state") }
        guard restored else { throw PluginError("\(name): \(file) is not a plugin state lilv can read", field: "state") }
        isolation?.stateFolder = folder
    }

    /// With the world held: `state`'s port values here, and the plugin's own part restored in
    /// this process (isolated: the port values alone; its process restores the rest from the
    /// state's folder when it starts).
    func restore(_ state: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let setPortValue: LilvSetPortValueFunc = { symbol, context, value, size, type in
            guard let symbol, let context, let value else { return }
            Unmanaged<PluginInstance>.fromOpaque(context).takeUnretainedValue().setSavedPortValue(
                String(cString: symbol), value: value, size: size, type: type)
        }
        if let instance {
            lilv_state_restore(state, instance, setPortValue, context, 0, pj_host_features(host))
        } else {
            lilv_state_emit_port_values(state, setPortValue, context)
        }
    }

    /// A port value from a saved state (a float, double or int atom).
    private func setSavedPortValue(_ symbol: String, value: UnsafeRawPointer, size: UInt32, type: UInt32) {
        guard let port = controlPort(symbol) else { return }
        let number: Float
        if type == pj_urid_map("http://lv2plug.in/ns/ext/atom#Float"), size == 4 {
            number = value.load(as: Float.self)
        } else if type == pj_urid_map("http://lv2plug.in/ns/ext/atom#Double"), size == 8 {
            number = Float(value.load(as: Double.self))
        } else if type == pj_urid_map("http://lv2plug.in/ns/ext/atom#Int"), size == 4 {
            number = Float(value.load(as: Int32.self))
        } else {
            return
        }
        let (value, problem) = port.checked(number)
        if let problem { warnings.append("\(name): saved state: \(problem)") }
        guard let value else { return }
        controlValues[Int(port.index)] = value
        controlSnapshot[Int(port.index)] = value
    }

    /// The input controls as of the last snapshot, by symbol.
    package var savedControls: [String: Double] {
        Dictionary(uniqueKeysWithValues: ports.filter { $0.kind == .control && $0.isInput }.map {
            ($0.symbol, Double(controlSnapshot[Int($0.index)]))
        })
    }

    /// Saves the state (port values from the last snapshot) into `folder`, made if missing;
    /// files the plugin refers to are copied or linked there.
    package func saveState(to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let isolation {
            // Its process saves it; a child started later restores this one.
            try isolation.save(to: folder)
            isolation.stateFolder = folder
            return
        }
        if let clap { return try saveCLAPState(clap, to: folder) }
        var status: Int32 = -1
        _ = PluginWorld.shared.withWorldOfPluginCode { world in
            guard let plugin = PluginWorld.plugin(uri, in: world) else { return }
            let context = Unmanaged.passUnretained(self).toOpaque()
            guard let state = lilv_state_new_from_instance(plugin, instance, pj_host_map(host), nil, folder, folder, folder, {
                symbol, context, size, type in
                guard let symbol, let context, let size, let type else { return nil }
                return Unmanaged<PluginInstance>.fromOpaque(context).takeUnretainedValue().savedPortValue(String(cString: symbol),
                                                                                                             size: size, type: type)
            }, context, 0, pj_host_features(host)) else { return }
            defer { lilv_state_free(state) }
            status = lilv_state_save(world, pj_host_map(host), pj_host_unmap(host), state, nil, folder, Self.stateFile)
        }
        guard status == 0 else { throw PluginError("\(name): cannot save its state in \(folder)") }
    }

    /// For lilv's save: a pointer to the snapshot's value of input control `symbol`.
    private func savedPortValue(_ symbol: String, size: UnsafeMutablePointer<UInt32>, type: UnsafeMutablePointer<UInt32>)
        -> UnsafeRawPointer? {
        guard let port = controlPort(symbol) else { return nil }
        size.pointee = 4
        type.pointee = pj_urid_map("http://lv2plug.in/ns/ext/atom#Float")
        return UnsafeRawPointer(controlSnapshot.pointer + Int(port.index))
    }

    /// Control thread, neither instance running: `playing`'s state — its controls and what it
    /// keeps itself (a loaded sample, a kit) — saved into `folder` and restored here (the same
    /// plugin, instantiated at another rate). `folder` must outlive this instance: the state may
    /// name files copied there.
    package func takeState(of playing: PluginInstance, through folder: String) throws {
        playing.snapshotControls()
        if let isolation = playing.isolation, !isolation.canSave {
            // Its process is restarting: what its restart would have had — the state last
            // restored or saved, and its controls as the engine holds them.
            if let last = isolation.stateFolder { try restoreState(from: last) }
            takeControls(of: playing)
            return
        }
        try playing.saveState(to: folder)
        try restoreState(from: folder)
    }
}
