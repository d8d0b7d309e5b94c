import CCLAP
import Foundation

/// A CLAP plugin's state on disk: what its `state` extension saves, in `<folder>/state.clap`,
/// and its controls by symbol in `<folder>/controls.json` (the engine's values are the truth,
/// as an LV2 state's port values are). Control thread.
extension PluginInstance {
    static let clapStateFile = "state.clap"
    static let clapControlsFile = "controls.json"

    /// What a CLAP state folder holds.
    struct CLAPSaved: Codable {
        var plugin: String
        var controls: [String: Float]
    }

    /// Saves the plugin's own state (if it has the extension) and the controls as last snapshot.
    func saveCLAPState(_ plugin: OpaquePointer, to folder: String) throws {
        let stateFile = URL(fileURLWithPath: folder).appendingPathComponent(Self.clapStateFile).path
        if pj_clap_has_state(plugin) != 0 && pj_clap_save_state(plugin, stateFile) == 0 {
            throw PluginError("\(name) (\(uri)): its state could not be saved in \(stateFile)")
        }
        var controls: [String: Float] = [:]
        for port in ports where port.kind == .control && port.isInput { controls[port.symbol] = controlSnapshot[Int(port.index)] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(CLAPSaved(plugin: uri, controls: controls))
            .write(to: URL(fileURLWithPath: folder).appendingPathComponent(Self.clapControlsFile))
    }

    /// Before `activate`: the plugin's own state from `folder` (in this process; a child
    /// restores its own), then the saved controls, checked.
    func restoreCLAPState(from folder: String) throws {
        let controlsFile = URL(fileURLWithPath: folder).appendingPathComponent(Self.clapControlsFile)
        guard let data = try? Data(contentsOf: controlsFile) else {
            throw PluginError("\(name): no saved state at \(controlsFile.path)", field: "state")
        }
        guard let saved = try? JSONDecoder().decode(CLAPSaved.self, from: data) else {
            throw PluginError("\(name): \(controlsFile.path) is not a CLAP plugin state pulsejack wrote", field: "state")
        }
        guard saved.plugin == uri else {
            throw PluginError("\(name) (\(uri)) cannot take a state saved for \(saved.plugin): \(controlsFile.path)", field: "state")
        }
        let stateFile = URL(fileURLWithPath: folder).appendingPathComponent(Self.clapStateFile).path
        if let clap, FileManager.default.fileExists(atPath: stateFile), pj_clap_load_state(clap, stateFile) == 0 {
            throw PluginError("\(name) (\(uri)) refused its saved state \(stateFile)", field: "state")
        }
        for (symbol, value) in saved.controls.sorted(by: { $0.key < $1.key }) {
            guard let port = controlPort(symbol) else { continue }
            let (checked, problem) = port.checked(value)
            if let problem { warnings.append("\(name): saved state: \(problem)") }
            guard let checked else { continue }
            controlValues[Int(port.index)] = checked
            controlSnapshot[Int(port.index)] = checked
        }
        isolation?.stateFolder = folder
    }
}
