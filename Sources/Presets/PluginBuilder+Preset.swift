import UserFiles
import Inputs
import Plugins

extension PluginBuilder {
    /// The chain for `inserts`; `fail(path, message)` with `path` like "[1].controls.gain".
    /// `place` names the chain ("piano", "master") for state folders; `folder` resolves a
    /// relative `state:`.
    package func chain(_ inserts: [Preset.Insert], place: String = "chain", folder: String = "/",
               fail: (String, String) -> InputError) throws -> InsertChain? {
        guard !inserts.isEmpty else { return nil }
        var stages: [InsertChain.Stage] = []
        for (index, insert) in inserts.enumerated() {
            func failHere(_ field: String?, _ message: String) -> InputError {
                fail("[\(index)]" + (field.map { ".\($0)" } ?? ""), message)
            }
            let key = "\(place).insert\(index + 1)"
            let state = insert.state.map { LoadedPreset.resolve($0, in: folder) }
            let isolate = insert.isolate ?? false
            let first = try instance(insert.plugin, controls: insert.controls ?? [:], preset: insert.preset, state: state.map { "\($0)/1" },
                                     key: "\(key)/1", isolate: isolate, fail: failHere)
            guard let layout = InsertChain.layout(inputs: first.audioInputs.count, outputs: first.audioOutputs.count) else {
                throw failHere("plugin", "\(first.name) has \(first.audioInputs.count) audio inputs and \(first.audioOutputs.count) "
                               + "outputs; an insert needs one or two of each")
            }
            var instances = [first]
            if layout == .dualMono {
                instances.append(try instance(insert.plugin, controls: insert.controls ?? [:], preset: insert.preset,
                                              state: state.map { "\($0)/2" }, key: "\(key)/2", isolate: isolate, fail: failHere))
            }
            stages.append(InsertChain.Stage(instances: instances, layout: layout, bypass: insert.bypass ?? false))
        }
        return InsertChain(stages: stages, maxFrames: maxFrames)
    }
}
