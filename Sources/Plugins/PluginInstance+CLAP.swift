import CCLAP
import CLV2
import Foundation
import Realtime

/// A CLAP plugin behind the same face as an LV2 one. Its audio channels, parameters and note
/// input become ports — audio inputs, audio outputs, one control per parameter (a read-only
/// parameter is an output), an output control `latency` that holds what it reports, and a
/// MIDI-carrying input when it takes notes — so inserts, instruments, OSC, the page, saves and
/// isolation treat both formats alike. Its run differs: a parameter is an event at its frame
/// (`queueControl`), a note a note event, the host's time a transport.
extension PluginInstance {
    /// The events one process takes: parameter values, notes and transports together.
    static let clapEventCapacity: UInt32 = 2048
    static let clapLatencySymbol = "latency"

    /// What a CLAP plugin is, read from an instance of it (CLAP has no description outside its code).
    struct CLAPLayout {
        var description: Description
        var inputs: Int
        var outputs: Int
        var parameters: Int
        var takesNotes: Bool
        var parameterBase: Int { inputs + outputs }
        var latencyPort: Int { parameterBase + parameters }
    }

    /// Control thread. `id`'s instance and what it is (plugin code: its factory, `init` and
    /// extensions), its `controls` checked as an LV2 plugin's are.
    static func makeCLAP(_ id: String, controls: [String: Float], maxFrames: Int, host: OpaquePointer,
                         quietly: Bool = false) throws -> (OpaquePointer, CLAPLayout) {
        let found = try CLAPWorld.plugin(id)
        if !quietly { announce("loading CLAP plugin \(found.name) (\(CLAPWorld.scheme)\(id)) from \(found.path)") }
        var error = [CChar](repeating: 0, count: 512)
        guard let plugin = pj_clap_new(id, UnsafeMutableRawPointer(host), pj_host_log_line, UInt32(maxFrames), clapEventCapacity, &error, error.count) else {
            throw PluginError("\(found.name) (\(CLAPWorld.scheme)\(id)) could not be made: \(CLAPWorld.text(error))")
        }
        do {
            return (plugin, try clapLayout(of: plugin, name: found.name, uri: CLAPWorld.scheme + id, controls: controls))
        } catch {
            pj_clap_free(plugin)
            throw error
        }
    }

    /// The ports of `plugin` in pulsejack's order, its controls checked.
    static func clapLayout(of plugin: OpaquePointer, name: String, uri: String, controls: [String: Float]) throws -> CLAPLayout {
        let inputs = Int(pj_clap_audio_channels(plugin, 1)), outputs = Int(pj_clap_audio_channels(plugin, 0))
        var ports: [PluginPort] = []
        for channel in 0..<inputs { ports.append(PluginPort(index: UInt32(channel), symbol: "in_\(channel + 1)", name: "Input \(channel + 1)", kind: .audio, isInput: true)) }
        for channel in 0..<outputs {
            ports.append(PluginPort(index: UInt32(inputs + channel), symbol: "out_\(channel + 1)", name: "Output \(channel + 1)", kind: .audio, isInput: false))
        }
        var parameters: [PJClapParam] = []
        for index in 0..<pj_clap_param_count(plugin) {
            var parameter = PJClapParam()
            if pj_clap_param(plugin, index, &parameter) != 0 { parameters.append(parameter) }
        }
        let names = parameters.map { parameter in (withUnsafeBytes(of: parameter.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }, parameter.id) }
        for (offset, (parameter, symbol)) in zip(parameters, CLAPWorld.symbols(of: names)).enumerated() {
            var port = PluginPort(index: UInt32(inputs + outputs + offset), symbol: symbol, name: names[offset].0, kind: .control,
                                  isInput: parameter.flags & UInt32(CLAP_PARAM_IS_READONLY) == 0)
            (port.minimum, port.maximum, port.defaultValue) = (Float(parameter.minimum), Float(parameter.maximum), Float(parameter.default_value))
            port.isInteger = parameter.flags & UInt32(CLAP_PARAM_IS_STEPPED) != 0
            port.isToggled = port.isInteger && parameter.minimum == 0 && parameter.maximum == 1
            port.checkRange()
            ports.append(port)
        }
        ports.append(PluginPort(index: UInt32(ports.count), symbol: clapLatencySymbol, name: "Latency", kind: .control, isInput: false))
        let takesNotes = pj_clap_note_inputs(plugin) > 0
        if takesNotes {
            var notes = PluginPort(index: UInt32(ports.count), symbol: "notes", name: "Notes", kind: .atom, isInput: true)
            notes.carriesMIDI = true
            ports.append(notes)
        }
        try checkControls(controls, among: ports, name: name, uri: uri)
        let description = Description(name: name, ports: ports, coarse: false, latency: UInt32(inputs + outputs + parameters.count),
                                      hasDefaultState: false)
        return CLAPLayout(description: description, inputs: inputs, outputs: outputs, parameters: parameters.count, takesNotes: takesNotes)
    }

    /// Each given control is one of the plugin's, within its range.
    static func checkControls(_ controls: [String: Float], among ports: [PluginPort], name: String, uri: String) throws {
        let settable = ports.filter { $0.kind == .control && $0.isInput }
        for (symbol, value) in controls.sorted(by: { $0.key < $1.key }) {
            guard let port = settable.first(where: { $0.symbol == symbol }) else {
                throw PluginError("\(name) (\(uri)) has no control '\(symbol)' (its controls: \(settable.map(\.symbol).joined(separator: ", ")))",
                                  field: "controls.\(symbol)")
            }
            guard port.accepts(value) else {
                throw PluginError("\(name)'s control '\(symbol)' takes \(port.rangeDescription), not \(value.plainText)", field: "controls.\(symbol)")
            }
        }
    }

    /// Control thread, before the first process: every parameter's value given to the plugin
    /// (`params.flush`), then activated, its latency read.
    func activateCLAP(_ plugin: OpaquePointer) {
        sendChangedParameters(plugin, all: true)
        pj_clap_flush(plugin)
        if pj_clap_activate(plugin, Double(sampleRate)) == 0 {
            warnings.append("\(name) (\(uri)) refused to activate at \(sampleRate) Hz; it stays silent")
        }
        controlValues[clapLatencyPort] = Float(pj_clap_latency(plugin))
        noteCLAPLatency()
    }

    /// Control thread, now and then: the plugin's timers, descriptors and callbacks served;
    /// the seconds until its next timer (nil: none) and the descriptors it waits on, for the
    /// control thread's sleep.
    package func serveMainThread() -> (dueSeconds: Double?, descriptors: [Int32]) {
        guard let clap else { return (nil, []) }
        if pj_clap_idle(clap) != 0 { warnings.append("\(name) asked for a restart; its settings hold until it is rebuilt") }
        let next = pj_clap_next_timer_ms(clap)
        return (next >= 0 ? Double(next) / 1000 : nil, (0..<pj_clap_fd_count(clap)).map { pj_clap_fd(clap, $0) }.filter { $0 >= 0 })
    }

    var clapLatencyPort: Int { Int(latencyPort ?? 0) }

    /// Real-time safe. Every input parameter whose control moved since it was last sent (or
    /// every one: `all`) as an event at the run's start.
    func sendChangedParameters(_ plugin: OpaquePointer, all: Bool = false) {
        for parameter in 0..<clapParameters {
            let port = clapParameterBase + parameter
            let value = controlValues[port]
            guard all || value != sentValues[port] else { continue }
            if pj_clap_add_param(plugin, 0, UInt32(parameter), Double(value)) != 0 { sentValues[port] = value }
        }
    }

    /// Real-time safe. Control `port` becomes `value` at `frame` of the coming run: an event
    /// there, with no split of the run.
    package func queueControl(_ port: UInt32, _ value: Float, atFrame frame: Int) {
        let index = Int(port)
        guard let clap, index >= clapParameterBase, index < clapParameterBase + clapParameters else { return setControl(port, value) }
        controlValues[index] = value
        if pj_clap_add_param(clap, UInt32(max(frame, 0)), UInt32(index - clapParameterBase), Double(value)) != 0 { sentValues[index] = value }
    }

    /// Real-time safe. One process: the parameters moved by hand, the queued positions as the
    /// transport, the channels as connected.
    func runCLAP(_ plugin: OpaquePointer, frames: Int) {
        sendChangedParameters(plugin)
        for index in 0..<queuedCount {
            let position = queuedPositions[index], bar = position.bar
            _ = pj_clap_add_transport(plugin, UInt32(queuedFrames[index]), position.beat, position.beatsPerMinute, position.beatsPerBar,
                                      position.beatUnit, position.speed > 0 ? 1 : 0, bar.index, position.beat - bar.beat)
        }
        for slot in 0..<audioInputs.count { pj_clap_connect(plugin, 1, UInt32(slot), connected[Int(audioInputs[slot])] ?? nil) }
        for slot in 0..<audioOutputs.count { pj_clap_connect(plugin, 0, UInt32(slot), connected[Int(audioOutputs[slot])] ?? nil) }
        _ = pj_clap_process(plugin, UInt32(frames))
        pj_clap_take_outputs(plugin, controlValues.pointer + clapParameterBase)
        controlValues[clapLatencyPort] = Float(pj_clap_cached_latency(plugin))
    }

    /// Real-time safe. The latency the plugin last reported, checked.
    func noteCLAPLatency() { noteLatency(controlValues[clapLatencyPort]) }
}
