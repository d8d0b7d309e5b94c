import Foundation
import Engine

/// Row 12: what a port per voice costs on JACK's process thread (`run --outputs voices
/// --midi-out voices`) against the master alone, in freewheel at a 64-frame period: the
/// PulSonify preset, and 64 always-sounding sample voices (128 audio ports and 64 MIDI ports more).
enum DAWRoutingBench {
    /// A 64-frame period at 48 kHz.
    static let periodMicroseconds = 64.0 / 48_000 * 1e6

    static func run(runs: Int) throws -> [BenchRow] {
        let server = try PrivateJackServer(periodFrames: 64)
        defer { server.stop() }
        var rows: [BenchRow] = []
        for (name, preset) in [("PulSonify preset (17 voices)", try BenchFixtures.shipped("pulsonify")),
                               ("64 sample voices", try BenchFixtures.sampleVoices(64))] {
            var cells: [String] = []
            var masterMicroseconds = 0.0
            for (label, outputs) in [("--outputs master", OutputLayout.masterOnly),
                                     ("--outputs voices", try OutputLayout(preset: preset, mode: .voices, midi: .combined)),
                                     ("--outputs voices --midi-out voices", try OutputLayout(preset: preset, mode: .voices, midi: .voices))] {
                var costs: [CallbackCostBench.Cost] = []
                for _ in 0..<runs { costs.append(try CallbackCostBench.measure(server: server, preset: preset, outputs: outputs)) }
                let median = Statistics(costs.map(\.median)).median
                let microseconds = median * periodMicroseconds
                let ports = outputs.audioPorts.count + outputs.midiPorts.count
                if ports == 0 { masterMicroseconds = microseconds }
                let added = ports == 0 ? "" : String(format: ", +%.1f µs for %d ports: %.0f ns a port", microseconds - masterMicroseconds, ports,
                                                     (microseconds - masterMicroseconds) * 1000 / Double(ports))
                cells.append("\(label): \(CallbackCostBench.percent(median)) (\(String(format: "%.1f", microseconds)) µs\(added)) / "
                             + CallbackCostBench.percent(Statistics(costs.map(\.p999)).median))
            }
            rows.append(BenchRow(row: "12. DAW routing",
                                 measure: "\(name), 64-frame period, callback cost median (µs) / p99.9 of \(CallbackCostBench.periodsPerRun) periods (freewheel)",
                                 pulsejack: cells.joined(separator: "; "), reference: "the same preset with the master only (first figure)",
                                 command: ".build/release/pulsejack-bench --only daw"))
        }
        return rows
    }
}
