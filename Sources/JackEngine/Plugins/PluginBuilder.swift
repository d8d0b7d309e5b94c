import Inputs
import Foundation

/// Builds hosted plugins from a preset's words, off the real-time thread, turning a plugin's
/// refusal into one error naming the preset file and line.
struct PluginBuilder {
    let sampleRate: Int
    let maxFrames: Int
    let offline: Bool
    /// Where plugins keep their state files (`state:makePath`); nil: a temporary folder.
    let stateFolder: String?

    /// An activated instance of `uri` with `controls`, then the saved state in `state` if given;
    /// `key` names its folder for files it makes (`state:makePath`). `fail(field, message)` makes
    /// the error, `field` relative to where the plugin is named ("controls.gain", or nil).
    func instance(_ uri: String, controls: [String: Double], state: String? = nil, key: String,
                  fail: (String?, String) -> InputError) throws -> PluginInstance {
        do {
            let instance = try PluginInstance(uri: uri, sampleRate: sampleRate, maxFrames: maxFrames,
                                              controls: controls.mapValues(Float.init),
                                              stateFolder: stateFolder.map { "\($0)/\(key)" }, offline: offline)
            if let state { try instance.restoreState(from: state) }
            instance.activate()
            return instance
        } catch let error as PluginError {
            throw fail(error.field, error.description)
        }
    }

    /// The chain for `inserts`; `fail(path, message)` with `path` like "[1].controls.gain".
    /// `place` names the chain ("piano", "master") for state folders; `folder` resolves a
    /// relative `state:`.
    func chain(_ inserts: [Preset.Insert], place: String = "chain", folder: String = "/",
               fail: (String, String) -> InputError) throws -> InsertChain? {
        guard !inserts.isEmpty else { return nil }
        var stages: [InsertChain.Stage] = []
        for (index, insert) in inserts.enumerated() {
            func failHere(_ field: String?, _ message: String) -> InputError {
                fail("[\(index)]" + (field.map { ".\($0)" } ?? ""), message)
            }
            let key = "\(place).insert\(index + 1)"
            let state = insert.state.map { LoadedPreset.resolve($0, in: folder) }
            let first = try instance(insert.plugin, controls: insert.controls ?? [:], state: state.map { "\($0)/1" }, key: "\(key)/1",
                                     fail: failHere)
            guard let layout = InsertChain.layout(inputs: first.audioInputs.count, outputs: first.audioOutputs.count) else {
                throw failHere("plugin", "\(first.name) has \(first.audioInputs.count) audio inputs and \(first.audioOutputs.count) "
                               + "outputs; an insert needs one or two of each")
            }
            var instances = [first]
            if layout == .dualMono {
                instances.append(try instance(insert.plugin, controls: insert.controls ?? [:], state: state.map { "\($0)/2" },
                                              key: "\(key)/2", fail: failHere))
            }
            stages.append(InsertChain.Stage(instances: instances, layout: layout, bypass: insert.bypass ?? false))
        }
        return InsertChain(stages: stages, maxFrames: maxFrames)
    }
}
