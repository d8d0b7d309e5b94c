import Inputs
import Foundation
import JackPeers
import Presets
import TestSupport

/// Row 9: hosting LV2 plugins. The cost of hosting (pulsejack and jalv playing mda EPiano from
/// the same JACK MIDI on one server, CPU per second of audio of each process), and the callback
/// cost of 16 heart-driven LV2 instrument voices at a 64-frame period.
enum PluginBench {
    static let epiano = "http://drobilla.net/plugins/mda/EPiano"

    static func run(runs: Int) throws -> [BenchRow] {
        let hosting = try hostingCost(seconds: 10)
        let server = try PrivateJackServer(periodFrames: 64)
        defer { server.stop() }
        var costs: [CallbackCostBench.Cost] = []
        for _ in 0..<max(1, min(runs, 3)) { costs.append(try CallbackCostBench.measure(server: server, preset: sixteenInstruments())) }
        let median = Statistics(costs.map(\.median)).median, p999 = Statistics(costs.map(\.p999)).median
        return [
            BenchRow(row: "9. Plugin hosting",
                     measure: "mda EPiano played from one JACK MIDI pad (a note every 8 periods, held 4), 256-frame period: CPU time per second of audio of the whole process (every thread's schedstat) over the same 10 s, median of 6 rounds in balanced orders: each process started in each place twice",
                     pulsejack: String(format: "%.2f ms/s (pulsejack with a click voice instead: %.2f ms/s)", hosting.ours, hosting.baseline),
                     reference: String(format: "jalv 1.6.6 (console) on the same server, same notes: %.2f ms/s", hosting.jalv),
                     command: ".build/release/pulsejack-bench --only plugins"),
            BenchRow(row: "9. Plugin hosting",
                     measure: "16 heart-driven LV2 instrument voices (mda EPiano, each 4 notes a beat at 60 BPM), 64-frame period, median / p99.9 of 10000 periods (freewheel; median of \(costs.count) runs)",
                     pulsejack: String(format: "%.2f %% / %.2f %% of the period", 100 * median, 100 * p999),
                     reference: "the period (64 frames = 1.33 ms); goal: p99.9 under 50 %",
                     command: ".build/release/pulsejack-bench --only plugins"),
        ]
    }

    /// 16 EPiano voices on the heartbeat, four notes a beat each, spread over the keyboard.
    static func sixteenInstruments() throws -> LoadedPreset {
        var yaml = "name: sixteen-instruments\nvoices:\n"
        for index in 0..<16 {
            yaml += "  - name: keys\(index)\n    kind: lv2\n    plugin: \(epiano)\n    note: \(40 + 2 * index)\n    length: 0.2\n"
            yaml += "    subdivide: 4\n    gain: 0.05\n    pan: \(Double(index % 5) / 2 - 1)\n"
        }
        let path = BenchFixtures.folder.appendingPathComponent("sixteen-instruments.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: path)
    }

    /// CPU milliseconds per second of audio: pulsejack hosting EPiano, pulsejack with a click
    /// (its own cost without the plugin), and jalv hosting EPiano, all from the same pad; the
    /// median of six rounds in balanced orders (`ProcessLoad`).
    static func hostingCost(seconds: Double) throws -> (ours: Double, baseline: Double, jalv: Double) {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pulsejack").path
        let piano = BenchFixtures.folder.appendingPathComponent("hosted-piano.yaml").path
        try """
        name: hosted-piano
        voices:
          - name: piano
            kind: lv2
            plugin: \(epiano)
            on_beat: false
            midi_note: 60
            length: \(4.0 * 256 / 48_000)
        """.write(toFile: piano, atomically: true, encoding: .utf8)
        let click = BenchFixtures.folder.appendingPathComponent("hosted-click.yaml").path
        try "name: hosted-click\nvoices:\n  - name: pad\n    kind: click\n    on_beat: false\n    midi_note: 60\n"
            .write(toFile: click, atomically: true, encoding: .utf8)
        let hosts = [(client: "pj-piano", arguments: ["run", "--name", "pj-piano", "--no-osc", "--preset", piano], input: "midi_in"),
                     (client: "pj-click", arguments: ["run", "--name", "pj-click", "--no-osc", "--preset", click], input: "midi_in"),
                     (client: "jalv-piano", arguments: ["-x", "-n", "jalv-piano", epiano], input: "event_in")]
        let loads = try ProcessLoad.medians(of: hosts.count) { order in
            let server = try PrivateJackServer(periodFrames: 256)
            defer { server.stop() }
            let jalvInput = Pipe()  // open for the run: jalv's console quits at the end of its input
            var processes: [Process?] = Array(repeating: nil, count: hosts.count)
            defer { for case let process? in processes where process.isRunning { process.interrupt(); process.waitUntilExit() } }
            for index in order {
                let host = hosts[index]
                processes[index] = host.client.hasPrefix("jalv")
                    ? try start("/usr/bin/jalv", host.arguments, input: jalvInput) : try start(tool, host.arguments)
                // Joined before the next starts: the start order is the graph's order.
                guard try Subprocess.waitForPorts(of: host.client, server: server.name, seconds: 20, port: host.input) else {
                    throw BenchFailure("\(host.client) did not join \(server.name)")
                }
            }
            let pad = try MidiSender(name: "bench-pad", note: 60, everyPeriods: 8, noteLengthPeriods: 4)
            defer { pad.close() }
            for host in hosts { try pad.connect(to: "\(host.client):\(host.input)") }
            usleep(1_000_000)
            return ProcessLoad.measure(processes.map { $0!.processIdentifier }, seconds: seconds)
        }
        return (loads[0].milliseconds, loads[1].milliseconds, loads[2].milliseconds)
    }

    private static func start(_ tool: String, _ arguments: [String], input: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let input { process.standardInput = input }
        try process.run()
        return process
    }
}
