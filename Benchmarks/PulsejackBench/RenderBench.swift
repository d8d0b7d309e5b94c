import Renders
import Runs
import Inputs
import Foundation
import TestSupport
import Realtime

/// Row 6: offline render speed for a ten-minute session with the default preset.
enum RenderBench {
    static func run(runs: Int) throws -> [BenchRow] {
        let changes = ReferenceBeats.wanderingTempo(sampleRate: 48_000, seconds: 600, seed: 11)
        let messages = changes.map { ControlMessage(frame: $0.frame, .tempo(bpm: Double($0.bpm))) }
        let out = BenchFixtures.folder.appendingPathComponent("render.wav").path
        var factors: [Double] = []
        for _ in 0..<runs {
            let renderer = try OfflineRenderer(preset: BenchFixtures.shipped("pulsonify"), sampleRate: 48_000, messages: messages)
            factors.append(try renderer.render(frames: 48_000 * 600, to: out).realTimeFactor)
        }
        try? FileManager.default.removeItem(atPath: out)
        return [
            BenchRow(row: "6. Offline render", measure: "10-minute session, PulSonify preset, 48 kHz, WAV written",
                     pulsejack: String(format: "%.0f× real time", Statistics(factors).median),
                     reference: "real time (1×)",
                     command: ".build/release/pulsejack-bench --only render"),
        ]
    }
}
