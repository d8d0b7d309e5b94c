import Inputs
import Foundation
import Presets
import SoundFiles

/// Presets and sounds the benchmark writes for itself in a temporary folder.
enum BenchFixtures {
    static let folder: URL = {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pulsejack-bench-\(getpid())")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func shipped(_ preset: String) throws -> LoadedPreset {
        try LoadedPreset.load(path: repository.appendingPathComponent("presets/\(preset)").path)
    }

    /// A 1.1 s stereo tone at 48 kHz: re-triggered every second at 60 BPM, each voice always sounds.
    static let sustainedSample: String = {
        let path = folder.appendingPathComponent("sustain.wav").path
        let frames = 52_800
        let writer = try! WavWriter(path: path, sampleRate: 48_000)
        let left = (0..<frames).map { Float(0.05 * sin(2 * Double.pi * 220 * Double($0) / 48_000)) }
        let right = (0..<frames).map { Float(0.05 * sin(2 * Double.pi * 330 * Double($0) / 48_000)) }
        try! writer.write(left: left, right: right, frames: frames)
        writer.close()
        return path
    }()

    /// A preset of `count` sample voices, each firing on every beat.
    static func sampleVoices(_ count: Int) throws -> LoadedPreset {
        var yaml = "name: bench-\(count)\nvoices:\n"
        for index in 0..<count {
            yaml += "  - name: v\(index)\n    kind: sample\n    file: \(sustainedSample)\n    gain: 0.01\n    polyphony: 2\n"
        }
        let path = folder.appendingPathComponent("voices-\(count).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: path)
    }

    /// A click voice that the MIDI note `note` triggers and the heartbeat does not.
    static func midiClick(note: Int) throws -> LoadedPreset {
        let path = folder.appendingPathComponent("midi-click.yaml").path
        try "name: midi-click\nvoices:\n  - name: pad\n    kind: click\n    on_beat: false\n    midi_note: \(note)\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: path)
    }

    static func cleanUp() { try? FileManager.default.removeItem(at: folder) }
}
