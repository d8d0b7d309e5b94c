import CCLAP
import CLV2
import Foundation

/// An isolated CLAP plugin described without its code in the engine: CLAP has no description
/// outside the plugin, so a short-lived child (`pulsejack clap-describe ID`) makes an instance,
/// prints its ports as JSON and exits; a crash there is one clear error, not the engine's end.
extension CLAPWorld {
    /// One port, as the child prints it.
    struct PortRecord: Codable {
        var symbol: String
        var name: String
        var kind: String
        var isInput: Bool
        var minimum: Float?
        var maximum: Float?
        var defaultValue: Float?
        var isInteger: Bool
        var isToggled: Bool
        var carriesMIDI: Bool
    }

    struct LayoutRecord: Codable {
        var name: String
        var inputs: Int
        var outputs: Int
        var parameters: Int
        var takesNotes: Bool
        var ports: [PortRecord]
    }

    /// In the child: `id`'s layout as JSON, or the error.
    package static func describedJSON(_ id: String) throws -> String {
        guard let host = pj_host_new(48_000, 1024, 1024, Int32(PluginInstance.sequenceBytes), nil, 1) else { throw PluginError("out of memory") }
        defer { pj_host_free(host) }
        let (plugin, layout) = try PluginInstance.makeCLAP(id, controls: [:], maxFrames: 1024, host: host)
        defer { pj_clap_free(plugin) }
        let ports = layout.description.ports.map { port in
            PortRecord(symbol: port.symbol, name: port.name, kind: port.kind == .audio ? "audio" : port.kind == .control ? "control" : "atom",
                       isInput: port.isInput, minimum: PluginPort.given(port.minimum), maximum: PluginPort.given(port.maximum),
                       defaultValue: PluginPort.given(port.defaultValue), isInteger: port.isInteger, isToggled: port.isToggled,
                       carriesMIDI: port.carriesMIDI)
        }
        let record = LayoutRecord(name: layout.description.name, inputs: layout.inputs, outputs: layout.outputs,
                                  parameters: layout.parameters, takesNotes: layout.takesNotes, ports: ports)
        return String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
    }

    /// In a child: `id` made, its preset `reference` (or name) loaded, and the state it leaves —
    /// the plugin's own and every control — saved into `folder`.
    package static func savePreset(_ id: String, preset reference: String, to folder: String) throws {
        let instance = try PluginInstance(uri: scheme + id, sampleRate: 48_000, maxFrames: 1024, offline: true)
        try instance.loadPreset(reference)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try instance.saveState(to: folder)
    }

    /// In the engine: a child saves `id`'s state after its preset `reference` into `folder`.
    static func savePresetInChild(_ id: String, preset reference: String, to folder: String) throws {
        _ = try runDescriber(id, ["--preset", reference, "--save", folder])
    }

    /// In the engine: `id`'s layout from a child, its controls checked.
    static func isolatedLayout(_ id: String, controls: [String: Float]) throws -> PluginInstance.CLAPLayout {
        let record = try JSONDecoder().decode(LayoutRecord.self, from: try runDescriber(id, []))
        let ports = record.ports.enumerated().map { index, port in
            var made = PluginPort(index: UInt32(index), symbol: port.symbol, name: port.name,
                                  kind: port.kind == "audio" ? .audio : port.kind == "control" ? .control : .atom, isInput: port.isInput)
            (made.minimum, made.maximum, made.defaultValue) = (port.minimum ?? .nan, port.maximum ?? .nan, port.defaultValue ?? .nan)
            (made.isInteger, made.isToggled, made.carriesMIDI) = (port.isInteger, port.isToggled, port.carriesMIDI)
            return made
        }
        try PluginInstance.checkControls(controls, among: ports, name: record.name, uri: scheme + id)
        let latency = UInt32(record.inputs + record.outputs + record.parameters)
        return PluginInstance.CLAPLayout(description: .init(name: record.name, ports: ports, coarse: false, latency: latency, hasDefaultState: false),
                                         inputs: record.inputs, outputs: record.outputs, parameters: record.parameters,
                                         takesNotes: record.takesNotes)
    }

    /// `pulsejack clap-describe ID ARGUMENTS` run to its end: what it printed, or the error
    /// naming how it ended (a crash is a plugin's, not the engine's). Spawned as the plugins'
    /// children are (`PluginProcess`), its output through files, not Foundation's `Process`,
    /// whose pipes another of its threads closes while one reads them.
    private static func runDescriber(_ id: String, _ arguments: [String]) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-clap-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path, err = folder.appendingPathComponent("err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([PluginProcess.executable, "clap-describe", id] + arguments).map { strdup($0) } + [nil]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash ends it at once, named by its signal
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv + envp { free(argument) }
            posix_spawn_file_actions_destroy(&actions)
        }
        var pid: pid_t = 0, status: Int32 = 0
        let spawned = posix_spawn(&pid, PluginProcess.executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw PluginError("\(scheme)\(id): \(PluginProcess.executable) could not be started to describe it (\(String(cString: strerror(spawned))))")
        }
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let printed = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
        let said = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        let signal = status & 0x7f, code = (status >> 8) & 0xff
        guard signal == 0, code == 0 else {
            let last = said.split(separator: "\n").last.map(String.init) ?? "no message"
            let how = signal != 0 ? "crashed (signal \(signal))" : "failed"
            throw PluginError("\(scheme)\(id): a child process making it \(how): \(last.replacingOccurrences(of: "pulsejack: ", with: ""))")
        }
        return printed
    }
}
