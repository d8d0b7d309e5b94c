import CCLAP
import CLV2
import Foundation

/// A CLAP plugin's own presets, through its bundle's preset discovery (listed), and one loaded
/// through its `preset-load` extension, its parameters then read back as the controls' values.
/// Control thread.
extension CLAPWorld {
    package struct Preset: Sendable, Equatable {
        package var name: String
        /// `CLAP_PRESET_DISCOVERY_LOCATION_FILE` (then `location` is its file) or `_PLUGIN`.
        package var kind: UInt32
        package var location: String?
        package var loadKey: String?

        /// How `plugins --presets` shows where it is: its file, or "plugin", with its load key after a `#`.
        package var reference: String {
            (kind == UInt32(CLAP_PRESET_DISCOVERY_LOCATION_FILE) ? location ?? "" : "plugin") + (loadKey.map { "#" + $0 } ?? "")
        }
    }

    /// The presets of plugin `id` (none when it offers no discovery), in its providers' order.
    package static func presets(of id: String) -> [Preset] {
        guard (try? plugin(id)) != nil else { return [] }
        final class Found { var presets: [Preset] = [] }
        let found = Found()
        _ = pj_clap_find_presets(id, { context, name, kind, location, key in
            guard let context, let name else { return }
            Unmanaged<Found>.fromOpaque(context).takeUnretainedValue().presets.append(
                Preset(name: String(cString: name), kind: kind, location: location.map { String(cString: $0) }, loadKey: key.map { String(cString: $0) }))
        }, Unmanaged.passUnretained(found).toOpaque())
        return found.presets
    }
}

extension PluginInstance {
    /// Before `activate`: CLAP preset `preset` loaded — in this process through `preset-load`,
    /// then every parameter read back; isolated, by a child of its own (`clap-describe --preset
    /// --save`) that saves the state it leaves, restored here as a saved state is.
    func loadCLAPPreset(_ preset: CLAPWorld.Preset, id: String) throws {
        guard let clap else {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-clap-preset-\(getpid())-\(UUID().uuidString)").path
            try CLAPWorld.savePresetInChild(id, preset: preset.reference, to: folder)
            return try restoreCLAPState(from: folder)
        }
        guard pj_clap_load_preset(clap, preset.kind, preset.location, preset.loadKey) != 0 else {
            throw PluginError("\(name) (\(uri)) refused its preset '\(preset.name)' (\(preset.reference))", field: "preset")
        }
        for parameter in 0..<clapParameters {
            var value = 0.0
            let port = ports[clapParameterBase + parameter]
            guard port.isInput, pj_clap_param_value(clap, UInt32(parameter), &value) != 0, let checked = port.checked(Float(value)).value else { continue }
            controlValues[Int(port.index)] = checked
            controlSnapshot[Int(port.index)] = checked
        }
    }
}
