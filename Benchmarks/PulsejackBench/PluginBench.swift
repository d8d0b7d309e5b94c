import Inputs
import Foundation
import JackPeers
import Presets

/// Row 9: hosting LV2 plugins. The cost of hosting (pulsejack and jalv playing mda EPiano from
/// the same JACK MIDI on one server, CPU per second of audio of each process), and the callback
/// cost of 16 heart-driven LV2 instrument voices at a 64-frame period.
enum PluginBench {
    static let epiano = "http://drobilla.net/plugins/mda/EPiano"

    static func run(runs: Int) throws -> [BenchRow] {
        let hosting = try hostingCost(seconds: 30)
        let server = try PrivateJackServer(periodFrames: 64)
        defer { server.stop() }
        var costs: [CallbackCostBench.Cost] = []
        for _ in 0..<max(1, min(runs, 3)) { costs.append(try CallbackCostBench.measure(server: server, preset: sixteenInstruments())) }
        let median = Statistics(costs.map(\.median)).median, p999 = Statistics(costs.map(\.p999)).median
        return [
            BenchRow(row: "9. Plugin hosting",
                     measure: "mda EPiano played from one JACK MIDI pad (a note every 8 periods, held 4), 256-frame period, 30 s: CPU time per second of audio of the whole process",
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
    /// (its own cost without the plugin), and jalv hosting EPiano, all from the same pad.
    static func hostingCost(seconds: Double) throws -> (ours: Double, baseline: Double, jalv: Double) {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
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
        let ours = try start(tool, ["run", "--name", "pj-piano", "--no-osc", "--preset", piano])
        let baseline = try start(tool, ["run", "--name", "pj-click", "--no-osc", "--preset", click])
        let jalvInput = Pipe()  // open for the run: jalv's console quits at the end of its input
        let jalv = try start("/usr/bin/jalv", ["-x", "-n", "jalv-piano", epiano], input: jalvInput)
        defer { for process in [ours, baseline, jalv] where process.isRunning { process.interrupt(); process.waitUntilExit() } }
        usleep(2_000_000)
        let pad = try MidiSender(name: "bench-pad", note: 60, everyPeriods: 8, noteLengthPeriods: 4)
        defer { pad.close() }
        for destination in ["pj-piano:midi_in", "pj-click:midi_in", "jalv-piano:event_in"] { try pad.connect(to: destination) }
        usleep(1_000_000)
        let before = [ours, baseline, jalv].map { cpuSeconds($0.processIdentifier) }
        usleep(UInt32(seconds * 1_000_000))
        let after = [ours, baseline, jalv].map { cpuSeconds($0.processIdentifier) }
        let perSecond = zip(after, before).map { 1000 * ($0 - $1) / seconds }
        return (perSecond[0], perSecond[1], perSecond[2])
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

    /// User and system CPU seconds of process `pid` (all its threads), from /proc.
    private static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, whole line).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
