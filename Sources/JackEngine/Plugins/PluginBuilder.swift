import Control

/// Builds hosted plugins from a preset's words, off the real-time thread, turning a plugin's
/// refusal into one error naming the preset file and line.
struct PluginBuilder {
    let sampleRate: Int
    let maxFrames: Int
    let offline: Bool
    /// Where plugins keep their state files (`state:makePath`); nil: a temporary folder.
    let stateFolder: String?

    /// An instance of `uri` with `controls`; `fail(field, message)` makes the error, `field`
    /// relative to where the plugin is named ("controls.gain", or nil for the plugin itself).
    func instance(_ uri: String, controls: [String: Double], fail: (String?, String) -> InputError) throws -> PluginInstance {
        do {
            return try PluginInstance(uri: uri, sampleRate: sampleRate, maxFrames: maxFrames,
                                      controls: controls.mapValues(Float.init), stateFolder: stateFolder, offline: offline)
        } catch let error as PluginError {
            throw fail(error.control.map { "controls.\($0)" }, error.description)
        }
    }

    /// The chain for `inserts`; `fail(path, message)` with `path` like "[1].controls.gain".
    func chain(_ inserts: [Preset.Insert], fail: (String, String) -> InputError) throws -> InsertChain? {
        guard !inserts.isEmpty else { return nil }
        var stages: [InsertChain.Stage] = []
        for (index, insert) in inserts.enumerated() {
            func failHere(_ field: String?, _ message: String) -> InputError {
                fail("[\(index)]" + (field.map { ".\($0)" } ?? ""), message)
            }
            let first = try instance(insert.plugin, controls: insert.controls ?? [:], fail: failHere)
            guard let layout = InsertChain.layout(inputs: first.audioInputs.count, outputs: first.audioOutputs.count) else {
                throw failHere("plugin", "\(first.name) has \(first.audioInputs.count) audio inputs and \(first.audioOutputs.count) "
                               + "outputs; an insert needs one or two of each")
            }
            var instances = [first]
            if layout == .dualMono { instances.append(try instance(insert.plugin, controls: insert.controls ?? [:], fail: failHere)) }
            stages.append(InsertChain.Stage(instances: instances, layout: layout, bypass: insert.bypass ?? false))
        }
        return InsertChain(stages: stages, maxFrames: maxFrames)
    }
}
