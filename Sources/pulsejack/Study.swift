import ArgumentParser
import Control
import Foundation
import JackEngine

/// The ResearchKit music study: a random clip plays for a set time while the heart rate is
/// recorded, before and during it; each run is saved in its own folder.
struct Study: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a random clip while recording the heart rate; save the samples (HealthKit JSON), the clip's name and a summary.",
        discussion: "Live, the heart rate comes from OSC (/pulse/bpm, /pulse/rr …) on a running JACK server; with --replay it comes from a recorded session and the study runs offline.")

    @Option(help: "The folder of clips (any sound files libsndfile reads).")
    var clips: String

    @Option(help: "Seconds the clip plays.")
    var duration: Double = 30

    @Option(help: "Seconds of heart rate recorded before the clip starts.")
    var baseline: Double = 10

    @Option(help: "The folder that receives one folder per run.")
    var out: String

    @Option(help: "A heart session (HealthKit JSON, CSV or session log) to use instead of live input.")
    var replay: String?

    @Option(help: "Seed for the clip choice (default: random).")
    var seed: UInt64?

    @Option(name: .customLong("osc-port"), help: "UDP port for OSC input when live.")
    var oscPort: UInt16 = 9000

    func validate() throws {
        guard duration.isFinite, (1...3600).contains(duration) else { throw ValidationError("--duration \(duration) is outside 1…3600 s") }
        guard baseline.isFinite, (0...600).contains(baseline) else { throw ValidationError("--baseline \(baseline) is outside 0…600 s") }
    }

    struct Summary: Encodable {
        struct Stats: Encodable { var samples: Int; var mean, min, max: Double? }
        var clip: String
        var baselineSeconds: Double
        var durationSeconds: Double
        var before: Stats
        var during: Stats
    }

    func run() throws {
        do {
            let library = try TrackLibrary.scan(folder: clips)
            guard !library.tracks.isEmpty else { throw InputError(file: clips, "no sound files to play") }
            var generator = SplitMix64(seed: seed ?? UInt64.random(in: 1...UInt64.max))
            let clip = library.tracks[Int(generator.next() % UInt64(library.tracks.count))]
            let started = Date()
            let samples = try replay.map { try replayedSamples($0) } ?? liveSamples(clip: clip.path)
            let folder = URL(fileURLWithPath: out).appendingPathComponent("run-\(Self.stamp(started))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try HealthKitExport.json(samples: samples, start: started).write(to: folder.appendingPathComponent("heart-rate.json"))
            try (URL(fileURLWithPath: clip.path).lastPathComponent + "\n").write(to: folder.appendingPathComponent("clip.txt"),
                                                                               atomically: true, encoding: .utf8)
            func stats(_ range: Range<Double>) -> Summary.Stats {
                let values = samples.filter { range.contains($0.time) }.map(\.bpm)
                return Summary.Stats(samples: values.count, mean: values.isEmpty ? nil : values.reduce(0, +) / Double(values.count),
                                     min: values.min(), max: values.max())
            }
            let summary = Summary(clip: URL(fileURLWithPath: clip.path).lastPathComponent, baselineSeconds: baseline,
                                  durationSeconds: duration, before: stats(0..<baseline),
                                  during: stats(baseline..<(baseline + duration)))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(summary).write(to: folder.appendingPathComponent("summary.json"))
            print("study: \(summary.clip), \(samples.count) heart-rate samples → \(folder.path)")
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error)
        }
    }

    /// The session's heart-rate samples inside the study's window (baseline, then the clip).
    func replayedSamples(_ path: String) throws -> [(time: Double, bpm: Double)] {
        let session = try HeartSession.load(path: path)
        warn(rejections: session.rejections, total: session.rejectedCount)
        return session.entries.compactMap { entry in
            guard entry.time < baseline + duration else { return nil }
            switch entry.event {
            case .tempo(let bpm): return (entry.time, bpm)
            case .rr(let seconds): return (entry.time, 60 / seconds)
            default: return nil
            }
        }
    }

    /// Live: the clip plays on the JACK server after the baseline, while OSC heart rates are recorded.
    func liveSamples(clip: String) throws -> [(time: Double, bpm: Double)] {
        JackClient.silenceLibraryMessages()
        let client = try JackClient(name: "pulsejack-study")
        let presetFolder = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-study-\(getpid())")
        try FileManager.default.createDirectory(at: presetFolder, withIntermediateDirectories: true)
        try "voices:\n  - {name: clip, kind: sample, file: \"\(clip)\", on_beat: false}\n"
            .write(to: presetFolder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        var setup = try EngineGraph.setup(preset: LoadedPreset.load(path: presetFolder.path), sampleRate: client.sampleRate,
                                          maxFrames: client.bufferSize)
        let applied = SPSCRing<ControlMessage>(minimumCapacity: 16_384)
        setup.appliedReports = applied
        var configuration = OSCInput.Configuration()
        configuration.port = oscPort
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: setup.voiceNames),
                               clock: JackFrameClock(handle: setup.handle, client: client), log: { warn($0) })
        let control = SPSCRing<ControlMessage>(minimumCapacity: 16)
        setup.sources = [osc.ring, control]
        let engine = RealtimeEngine(setup)
        try client.activate(engine: engine)
        _ = client.connectToPlayback()
        osc.start()
        print("study: recording the heart rate (OSC on 127.0.0.1:\(osc.boundPort)); the clip starts in \(Int(baseline)) s")
        usleep(UInt32(baseline * 1_000_000))
        control.producer.push(ControlMessage(.voiceTrigger(voice: 0, velocity: 1)))
        usleep(UInt32(duration * 1_000_000))
        osc.stop()
        client.deactivate()
        client.close()
        var samples: [(time: Double, bpm: Double)] = []
        while let message = applied.consumer.pop() {
            if case .tempo(let bpm) = message.event { samples.append((Double(message.frame) / Double(client.sampleRate), bpm)) }
        }
        return samples
    }

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter.string(from: date)
    }
}
