import Renders
import Runs
import Inputs
import Foundation
import Realtime

/// The voice bank's cost: CPU time per second of audio for each voice of the PulSonify preset
/// rendered alone (offline, 256-frame blocks, 72 BPM).
enum VoiceCostBench {
    static func run(runs: Int) throws -> [BenchRow] {
        let preset = try BenchFixtures.shipped("pulsonify")
        var cells: [String] = []
        for voice in ["arpeggio", "maraca", "bells", "drum1", "routine", "uke"] {
            let cost = try medianOfRuns(runs) { () -> Double in
                let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, solo: voice,
                                                   messages: [ControlMessage(frame: 0, .tempo(bpm: 72))])
                let summary = try renderer.render(frames: 48_000 * 60, to: "/dev/null")
                return summary.secondsTaken / 60
            }
            cells.append(String(format: "%@ %.3f %%", voice, cost * 100))
        }
        // The track player (Rubber Band, following a heart at 72 BPM from tracks at 60–120).
        let mood = try BenchFixtures.shipped("musicmood")
        let track = try medianOfRuns(runs) { () -> Double in
            let renderer = try OfflineRenderer(preset: mood, sampleRate: 48_000, solo: "music",
                                               messages: [ControlMessage(frame: 0, .tempo(bpm: 72))])
            return try renderer.render(frames: 48_000 * 60, to: "/dev/null").secondsTaken / 60
        }
        cells.append(String(format: "track player (stretching) %.3f %%", track * 100))
        let whole = try medianOfRuns(runs) { () -> Double in
            let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, messages: [ControlMessage(frame: 0, .tempo(bpm: 72))])
            return try renderer.render(frames: 48_000 * 60, to: "/dev/null").secondsTaken / 60
        }
        return [BenchRow(row: "3. Process-callback cost",
                         measure: "each PulSonify voice, and the MusicMood track player, alone: time per second of audio (offline, WAV written to /dev/null)",
                         pulsejack: cells.joined(separator: "; ") + String(format: "; the whole preset %.2f %%", whole * 100),
                         reference: "real time (100 %)",
                         command: ".build/release/pulsejack-bench --only voices")]
    }
}
