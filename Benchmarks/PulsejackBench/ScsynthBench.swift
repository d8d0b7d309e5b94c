import Renders
import Runs
import Inputs
import Foundation
import TestSupport
import Realtime
import Presets

/// Row 6: the same score rendered offline by pulsejack and by SuperCollider's scsynth (NRT):
/// K sample voices fired on every beat at 60 BPM for 600 s at 48 kHz, each voice at gain 0.01
/// and its own pan, through pulsejack's pan law (the SynthDef applies the same channel gains:
/// `scripts/make-scsynth-synthdef.py`, OffsetOut for sample accuracy). CPU time of each render
/// (pulsejack's in this process, scsynth's as a child) and the largest sample difference.
enum ScsynthBench {
    static let seconds = 600
    static let sampleRate = 48_000

    static func run(runs: Int) throws -> [BenchRow] {
        guard let scsynth = ["/usr/bin/scsynth", "/usr/local/bin/scsynth"].first(where: FileManager.default.isExecutableFile) else {
            throw BenchFailure("scsynth is not installed (Debian supercollider-server; make bench installs it)")
        }
        let synthDef = BenchFixtures.repository.appendingPathComponent("Benchmarks/scsynth/pj_sample.scsyndef").path
        var results: [String] = []
        var ratios: [String] = []
        for voices in [16, 64, 256] {
            let (preset, gains) = try score(voices: voices)
            let ours = BenchFixtures.folder.appendingPathComponent("pj-\(voices).wav").path
            let theirs = BenchFixtures.folder.appendingPathComponent("sc-\(voices).wav").path
            let oscScore = BenchFixtures.folder.appendingPathComponent("score-\(voices).osc").path
            try scsynthScore(gains: gains, synthDef: synthDef).write(to: URL(fileURLWithPath: oscScore))
            var ourSeconds: [Double] = [], theirSeconds: [Double] = []
            for _ in 0..<max(1, min(runs, 3)) {
                let renderer = try OfflineRenderer(preset: preset, sampleRate: sampleRate, periodFrames: 64,
                                                   messages: [ControlMessage(frame: 0, .tempo(bpm: 60))])
                let started = processCPUSeconds()
                _ = try renderer.render(frames: Int64(seconds * sampleRate), to: ours)
                ourSeconds.append(processCPUSeconds() - started)
                theirSeconds.append(try childCPUSeconds {
                    try run(scsynth, ["-N", oscScore, "_", theirs, "\(sampleRate)", "WAV", "float", "-o", "2", "-i", "0",
                                      "-n", "8192", "-m", "65536"])
                })
            }
            let difference = try largestDifference(ours, theirs)
            try? FileManager.default.removeItem(atPath: ours)
            try? FileManager.default.removeItem(atPath: theirs)
            let us = Statistics(ourSeconds).median, them = Statistics(theirSeconds).median
            results.append(String(format: "K = %d: %.2f s (scsynth %.2f s), max |difference| %.1e", voices, us, them, difference))
            ratios.append(String(format: "K = %d: %.3f×", voices, us / them))
        }
        return [
            BenchRow(row: "6. Offline render",
                     measure: "beside scsynth (NRT): K sample voices on every beat at 60 BPM, 600 s at 48 kHz, gains 0.01 and spread pans, same pan law; CPU time of the render (median of \(max(1, min(runs, 3))))",
                     pulsejack: results.joined(separator: "; "),
                     reference: "pulsejack's CPU time as a fraction of scsynth's: " + ratios.joined(separator: ", "),
                     command: ".build/release/pulsejack-bench --only scsynth"),
        ]
    }

    /// The preset, and each voice's (left, right) channel gains by pulsejack's pan law.
    private static func score(voices: Int) throws -> (LoadedPreset, [(Float, Float)]) {
        var yaml = "name: scsynth-\(voices)\nvoices:\n"
        var gains: [(Float, Float)] = []
        for index in 0..<voices {
            let pan = Float(index % 9 - 4) / 4
            let gain: Float = 0.01
            yaml += "  - name: v\(index)\n    kind: sample\n    file: \(BenchFixtures.sustainedSample)\n    gain: \(gain)\n    pan: \(pan)\n    polyphony: 2\n"
            gains.append((gain * min(1, 1 - pan), gain * min(1, 1 + pan)))
        }
        let path = BenchFixtures.folder.appendingPathComponent("scsynth-\(voices).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return (try LoadedPreset.load(path: path), gains)
    }

    /// scsynth's NRT score: the SynthDef and the sample loaded at 0 s, then on every whole second
    /// one synth per voice; the score's last bundle sets its length.
    private static func scsynthScore(gains: [(Float, Float)], synthDef: String) -> Data {
        func timetag(_ second: Int) -> UInt64 { UInt64(second) << 32 }
        var bundles = [OSCEncoder.bundle(timetag: timetag(0), [
            OSCEncoder.message("/d_load", [.string(synthDef)]),
            OSCEncoder.message("/b_allocRead", [.int(0), .string(BenchFixtures.sustainedSample), .int(0), .int(0)]),
        ])]
        for second in 0..<seconds {
            bundles.append(OSCEncoder.bundle(timetag: timetag(second), gains.map { left, right in
                OSCEncoder.message("/s_new", [.string("pj_sample"), .int(-1), .int(0), .int(0), .string("buf"), .int(0),
                                              .string("ampL"), .float(left), .string("ampR"), .float(right)])
            }))
        }
        bundles.append(OSCEncoder.bundle(timetag: timetag(seconds), [OSCEncoder.message("/c_set", [.int(0), .int(0)])]))
        var data = Data()
        for bundle in bundles {
            withUnsafeBytes(of: Int32(bundle.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: bundle)
        }
        return data
    }

    private static func largestDifference(_ a: String, _ b: String) throws -> Double {
        let first = try WavFile(path: a), second = try WavFile(path: b)
        // scsynth renders whole 64-frame blocks, so its file may run up to a block longer.
        let frames = seconds * sampleRate
        guard first.frameCount >= frames, second.frameCount >= frames, second.frameCount - frames <= 64 else {
            throw BenchFailure("the renders are \(first.frameCount) and \(second.frameCount) frames long, not \(frames)")
        }
        var largest: Float = 0
        for channel in 0..<2 {
            first.channels[channel].withUnsafeBufferPointer { x in
                second.channels[channel].withUnsafeBufferPointer { y in
                    for frame in 0..<frames { largest = max(largest, abs(x[frame] - y[frame])) }
                }
            }
        }
        return Double(largest)
    }

    private static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func childCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
        func children() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let before = children()
        try body()
        return children() - before
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchFailure("\(tool) exited with \(process.terminationStatus)") }
    }
}
