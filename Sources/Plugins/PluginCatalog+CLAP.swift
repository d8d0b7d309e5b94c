import CCLAP
import CLV2
import Foundation

/// The CLAP plugins in the `plugins` listing, beside LV2's: each made once (not activated) to
/// read its audio ports, note input and parameters, as CLAP describes a plugin only from its code.
extension PluginCatalog {
    static func clapDescriptions() -> [PluginDescription] {
        guard let host = pj_host_new(48_000, 1024, 1024, Int32(PluginInstance.sequenceBytes), nil, 1) else { return [] }
        defer { pj_host_free(host) }
        return CLAPWorld.plugins().plugins.map { plugin in
            var described = PluginDescription(uri: plugin.uri, name: plugin.name,
                                              pluginClass: plugin.isInstrument ? "CLAP instrument" : "CLAP effect",
                                              audioInputs: 0, audioOutputs: 0, midiInputs: 0, midiOutputs: 0, controls: [], requiredFeatures: [])
            guard let (instance, layout) = try? PluginInstance.makeCLAP(plugin.id, controls: [:], maxFrames: 1024, host: host, quietly: true) else {
                return described
            }
            defer { pj_clap_free(instance) }
            (described.audioInputs, described.audioOutputs, described.midiInputs) = (layout.inputs, layout.outputs, layout.takesNotes ? 1 : 0)
            described.controls = layout.description.ports.filter { $0.kind == .control }.map {
                .init(symbol: $0.symbol, name: $0.name, minimum: PluginPort.given($0.minimum), maximum: PluginPort.given($0.maximum),
                      default: PluginPort.given($0.defaultValue), output: !$0.isInput)
            }
            return described
        }
    }
}
