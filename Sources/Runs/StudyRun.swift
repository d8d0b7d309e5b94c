import Renders
import UserFiles
import Foundation
import Inputs
import Realtime
import SoundFiles

/// The ResearchKit music study: a random clip plays for `duration` seconds while the heart rate
/// is recorded, `baseline` seconds before it and during it; each run is saved in a folder of its
/// own under `out` (the samples as HealthKit JSON, the clip's name, a summary). Live, the heart
/// rate comes from OSC into a live run of the clip (`LiveSession`); with `replay`, from a
/// recorded session, offline. Control thread; it returns what it saved.
public struct StudyRun {
    public var clips: String
    public var duration = 30.0
    public var baseline = 10.0
    public var out: String
    /// A heart session to use instead of live input.
    public var replay: String?
    /// The clip choice's seed (nil: random).
    public var seed: UInt64?
    /// Live: the OSC port the heart rate arrives on (0: any free port).
    public var oscPort: UInt16 = 9000
    /// Live: LSL outlets (`--lsl`: the clip's start and stop among the markers), and a heart read from LSL (`--heart lsl:…`).
    public var lsl = false
    public var heart: String?
    /// Live: asked while waiting; true ends the study early (what was recorded is saved).
    public var shouldStop: @Sendable () -> Bool = { false }
    /// Lines for the terminal, and warnings.
    public var say: @Sendable (String) -> Void = { _ in }
    public var warn: @Sendable (String) -> Void = { _ in }

    /// The options' ranges: one clear refusal, named by its option.
    public func check() throws {
        guard duration.isFinite, (1...3600).contains(duration) else { throw OptionProblem("--duration \(duration) is outside 1…3600 s") }
        guard baseline.isFinite, (0...600).contains(baseline) else { throw OptionProblem("--baseline \(baseline) is outside 0…600 s") }
        if let heart, !heart.lowercased().hasPrefix("lsl:") { throw OptionProblem("--heart \(heart): the study reads OSC, or an LSL stream (lsl:NAME)") }
        if (lsl || heart != nil) && replay != nil { throw OptionProblem("--lsl and --heart are for a live study, not --replay") }
    }

    public init(clips: String, out: String) {
        self.clips = clips
        self.out = out
    }

    /// What `summary.json` holds.
    public struct Summary: Encodable, Sendable {
        public struct Stats: Encodable, Sendable { public var samples: Int; public var mean, min, max: Double? }
        public var clip: String
        public var baselineSeconds: Double
        public var durationSeconds: Double
        public var before: Stats
        public var during: Stats
    }

    /// A study's run: where it was saved and what.
    public struct Outcome: Sendable {
        public var folder: String
        public var summary: Summary
        public var samples: Int
    }

    public func run() throws -> Outcome {
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
        let summary = Summary(clip: URL(fileURLWithPath: clip.path).lastPathComponent, baselineSeconds: baseline, durationSeconds: duration,
                              before: stats(0..<baseline), during: stats(baseline..<(baseline + duration)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(summary).write(to: folder.appendingPathComponent("summary.json"))
        return Outcome(folder: folder.path, summary: summary, samples: samples.count)
    }

    /// The session's heart-rate samples inside the study's window (baseline, then the clip).
    func replayedSamples(_ path: String) throws -> [(time: Double, bpm: Double)] {
        let session = try HeartSession.load(path: path)
        for rejection in session.rejections.prefix(3) { warn(rejection.description) }
        if session.rejectedCount > 3 { warn("\(session.rejectedCount - 3) more entries rejected in \(path)…") }
        return session.entries.compactMap { entry in
            guard entry.time < baseline + duration else { return nil }
            switch entry.event {
            case .tempo(let bpm): return (entry.time, bpm)
            case .rr(let seconds): return (entry.time, 60 / seconds)
            default: return nil
            }
        }
    }

    /// Live: a run of a one-voice preset (the clip, fired once after the baseline) on the JACK
    /// server, its applied messages recorded; the tempi in them are the heart rate.
    func liveSamples(clip: String) throws -> [(time: Double, bpm: Double)] {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-study-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try "voices:\n  - {name: clip, kind: sample, file: \"\(clip)\", on_beat: false}\n"
            .write(to: work.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        var configuration = LiveSession.Configuration(preset: work.path)
        configuration.clientName = "pulsejack-study"
        configuration.osc?.port = oscPort
        configuration.connectToPlayback = true
        let log = work.appendingPathComponent("session.jsonl").path
        configuration.recordSession = log
        (configuration.lsl, configuration.heart) = (lsl, heart)
        let session = try LiveSession(configuration: configuration, log: warn, say: { _ in })
        let clipName = URL(fileURLWithPath: clip).lastPathComponent
        try session.activate()
        say("study: recording the heart rate (OSC on 127.0.0.1:\(session.osc?.boundPort ?? oscPort)); the clip starts in \(Int(baseline)) s")
        let start = MonotonicClock.seconds
        var clipStarted = false
        while !shouldStop() {
            let elapsed = MonotonicClock.seconds - start
            guard elapsed < baseline + duration else { break }
            if !clipStarted, elapsed >= baseline {
                let frame = session.handle.publishedPeriodStart.load(ordering: .relaxed) + Int64(session.client.bufferSize)
                clipStarted = session.send(ControlMessage(frame: frame, .voiceTrigger(voice: 0, velocity: 1)))
                if clipStarted { session.lslOut?.mark("clip/start " + clipName, frame: frame) }
            }
            session.tick()
            usleep(UInt32(min(100_000, max(1_000, (baseline + duration - (MonotonicClock.seconds - start)) * 1_000_000))))
        }
        if clipStarted { session.lslOut?.mark("clip/stop " + clipName) }
        _ = session.stop()
        let recorded = try SessionLog.parse(String(contentsOfFile: log, encoding: .utf8), path: log)
        // The heart rate: each tempo (OSC's /pulse/bpm), and each interval a beat-giving heart
        // (an LSL ECG, PPG or RR stream) brought, as the rate it implies.
        return recorded.messages.flatMap { message -> [(time: Double, bpm: Double)] in
            let time = Double(message.frame) / Double(recorded.header.sample_rate)
            switch message.event {
            case .tempo(let bpm): return [(time, bpm)]
            case .rrIntervals(let chunk): return chunk.seconds.filter { $0 > 0 }.map { (time, 60 / $0) }
            default: return []
            }
        }
    }

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter.string(from: date)
    }
}
