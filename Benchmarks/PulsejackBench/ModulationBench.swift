import Renders
import Inputs
import Foundation
import TestSupport
import Realtime
import Presets

/// Row 15: the body shaping the sound. The process callback at a 64-frame period with 64
/// modulations that all change their destination at every 32-frame control block (each reads the
/// heart's beat phase), against the same preset without them; and the offline render speed of
/// both.
enum ModulationBench {
    /// 16 sample voices, each with an eg-amp insert: 64 destinations (gain, pan, velocity, the
    /// insert's gain), all modulated by `beat.phase` when `modulated`.
    static func preset(modulated: Bool) throws -> LoadedPreset {
        var yaml = "name: bench-modulations\nvoices:\n"
        for index in 0..<16 {
            yaml += "  - name: v\(index)\n    kind: sample\n    file: \(BenchFixtures.sustainedSample)\n    gain: 0.01\n    polyphony: 2\n"
            yaml += "    inserts: [{plugin: http://lv2plug.in/plugins/eg-amp}]\n"
        }
        if modulated {
            yaml += "modulations:\n"
            for index in 0..<16 {
                yaml += "  - {from: beat.phase, to: voice.v\(index).gain, to_range: [0.005, 0.01]}\n"
                yaml += "  - {from: beat.phase, to: voice.v\(index).pan, to_range: [-0.5, 0.5]}\n"
                yaml += "  - {from: beat.phase, to: voice.v\(index).velocity, to_range: [0.5, 1]}\n"
                yaml += "  - {from: beat.phase, to: voice.v\(index).insert.1.gain, to_range: [-12, 0]}\n"
            }
        }
        let path = BenchFixtures.folder.appendingPathComponent("modulations-\(modulated).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: path)
    }

    static func run(runs: Int) throws -> [BenchRow] {
        let server = try PrivateJackServer(periodFrames: 64)
        var cells: [String] = []
        for modulated in [false, true] {
            let loaded = try preset(modulated: modulated)
            var costs: [CallbackCostBench.Cost] = []
            for _ in 0..<runs { costs.append(try CallbackCostBench.measure(server: server, preset: loaded)) }
            cells.append((modulated ? "with 64 modulations: " : "without: ")
                + "\(CallbackCostBench.percent(Statistics(costs.map(\.median)).median)) / "
                + "\(CallbackCostBench.percent(Statistics(costs.map(\.p999)).median)) / \(CallbackCostBench.percent(Statistics(costs.map(\.max)).median))")
        }
        server.stop()
        let changes = ReferenceBeats.wanderingTempo(sampleRate: 48_000, seconds: 600, seed: 11)
        let messages = changes.map { ControlMessage(frame: $0.frame, .tempo(bpm: Double($0.bpm))) }
        let out = BenchFixtures.folder.appendingPathComponent("render-modulations.wav").path
        var speeds: [String] = []
        for modulated in [false, true] {
            let loaded = try preset(modulated: modulated)
            var factors: [Double] = []
            for _ in 0..<runs {
                let renderer = try OfflineRenderer(preset: loaded, sampleRate: 48_000, messages: messages)
                factors.append(try renderer.render(frames: 48_000 * 600, to: out).realTimeFactor)
            }
            speeds.append((modulated ? "with 64 modulations: " : "without: ") + String(format: "%.0f× real time", Statistics(factors).median))
        }
        try? FileManager.default.removeItem(atPath: out)
        return [
            BenchRow(row: "15. Body → sound", measure: "16 sample voices with an eg-amp insert, 64-frame period, median / p99.9 / max of "
                        + "\(CallbackCostBench.periodsPerRun) periods (freewheel); 64 modulations (each voice's gain, pan, velocity and "
                        + "insert gain, from beat.phase) changing every 32-frame control block",
                     pulsejack: cells.joined(separator: "; "), reference: "the same preset without modulations",
                     command: ".build/release/pulsejack-bench --only modulation"),
            BenchRow(row: "15. Body → sound", measure: "offline render of that preset, 10-minute wandering-tempo session, 48 kHz, WAV written",
                     pulsejack: speeds.joined(separator: "; "), reference: "the same preset without modulations",
                     command: ".build/release/pulsejack-bench --only modulation"),
        ]
    }
}
