import UserFiles
import Foundation
import Pose
import Inputs
import Realtime
import Reports
import Engine
import Presets

/// One offline render with everything around it — the sessions merged per performer, the events
/// log, stems, the meters plot and the web report — shared by `render` and `demo`. Offline: it
/// returns what happened; the command line prints it.
public struct RenderJob {
    public var preset: String
    /// `[PERFORMER=]FILE` each.
    public var sessions: [String]
    public var out: String
    public var eventsOut: String?
    /// `--midi-clock FILE`: the clocks `clock_out` would send, as a MIDI file a frame a tick.
    public var midiClock: String?
    public var rate = 48_000
    /// Seconds to render (nil: the sessions' length plus 2 s; a session log's own length).
    public var duration: Double?
    public var solo: String?
    public var period = 256
    /// An audio file played into the engine's input.
    public var input: String?
    /// A video's body into the drum regions (`--pose video:FILE`), on its own time stamps.
    public var pose: String?
    /// Seconds from a frame's time stamp to its sound (`--pose-delay`), as live.
    public var poseDelay = PoseInput.defaultDelay
    public var metersPlot: String?
    public var plotRevolution = 10.0
    public var webReport: String?
    /// `--stems DIR`, and `--outputs`: per voice or per group (nil: as the preset says).
    public var stems: String?
    public var stemOutputs: OutputLayout.Mode?
    /// Asked before each period: true ends the render there, with the file finished.
    public var shouldStop: (() -> Bool)?
    /// With a watchdog (`render`): seconds a period may take before the render is stopped,
    /// naming the plugin that is stuck; and the stop signal received, if any.
    public var watchdogSeconds: Double?
    /// Every hosted plugin in a process of its own (`--isolate-plugins`).
    public var isolatePlugins = false
    public var stopSignal: (@Sendable () -> Int32?) = { nil }
    /// Each period's share of the render done (a progress bar).
    public var progress: ((Double) -> Void)?
    /// Lines on the way, for standard error: the sessions' rejected entries ("warning: …"), a
    /// muted soloed voice, the plugins' logs ("plugin …").
    public var say: (String) -> Void = { _ in }

    public init(preset: String, sessions: [String], out: String) {
        self.preset = preset
        self.sessions = sessions
        self.out = out
    }

    /// What a render did.
    public struct Summary: CustomStringConvertible, Sendable {
        public var render: OfflineRenderer.Summary
        public var out: String
        /// Tempo updates rejected, reading the sessions and playing them.
        public var rejectedTempos: Int
        public var metersPlot: String?
        public var webReport: String?
        /// With `solo`: why the soloed voice fired nothing, when it did not.
        public var silentSolo: String?
        public var stopped: Bool

        public var description: String {
            let render = self.render
            var line = String(format: "rendered %lld frames (%.2f s at %d Hz), %d beats, %d voices fired, in %.3f s (%.0f× real time) → %@",
                              render.frames, Double(render.frames) / Double(render.sampleRate), render.sampleRate, render.beats,
                              render.voicesFired, render.secondsTaken, render.realTimeFactor, out)
            if rejectedTempos > 0 { line += "; \(rejectedTempos) tempo update\(rejectedTempos == 1 ? "" : "s") rejected" }
            line += "; \(render.counters[.clippedSamples]) clipped samples"
            if let metersPlot { line += "; meters plot → \(metersPlot)" }
            if let webReport { line += "; web report → \(webReport)" }
            if let silentSolo { line += "; " + silentSolo }
            return line
        }
    }

    /// Offline. Throws an `InputError` naming the file for bad input.
    /// Throws the first value a render cannot use.
    public func check() throws {
        guard (8000...192_000).contains(rate) else { throw OptionProblem("--rate \(rate) is outside 8000…192000 Hz") }
        if let duration, !(duration.isFinite && duration > 0 && duration <= HeartSession.maximumSeconds) {
            throw OptionProblem("--duration \(duration) is not a number of seconds in (0, 86400]")
        }
        guard (1...8192).contains(period) else { throw OptionProblem("--period \(period) is outside 1…8192") }
        if midiClock != nil, MIDIClockFile.timing(sampleRate: rate) == nil {
            throw OptionProblem("--midi-clock: a MIDI file cannot count frames at \(rate) Hz; render at 44100 or 48000 Hz")
        }
        try OptionProblem.checkRevolution(plotRevolution)
        if sessions.isEmpty && pose == nil { throw OptionProblem("Missing expected argument '--session <[PERFORMER=]FILE>' (or --pose video:FILE)") }
        if !(poseDelay.isFinite && (0...2).contains(poseDelay)) { throw OptionProblem("--pose-delay \(poseDelay) is outside 0…2 s") }
        if let pose {
            let source: VideoSource.Source
            do { source = try PoseSourceSpec.parse(pose) } catch { throw OptionProblem("--pose: \(error)") }
            guard case .file = source else { throw OptionProblem("--pose \(pose): a render reads a video file (video:FILE), not a camera") }
        }
    }

    public func run() throws -> Summary {
        let loaded = try LoadedPreset.load(path: preset)
        var source = sessions.isEmpty ? SessionSource.none
            : try PerformerSessions.load(sessions.map(PerformerSessions.Spec.init), preset: loaded, sampleRate: rate)
        if let pose { try addPose(pose, to: &source, loaded: loaded) }
        for rejection in source.rejections.prefix(3) { say("warning: " + LogLine.clipped(rejection.description)) }
        if source.rejectedCount > 3, let first = source.rejections.first {
            say("warning: \(source.rejectedCount - 3) more entries rejected in \(LogLine.clipped(first.place, to: 200))…")
        }
        let soloed = solo.flatMap { name in loaded.voices.first { $0.definition.name == name }?.definition }
        if let soloed, soloed.mute == true || soloed.enabled == false { say("--solo \(soloed.name): the preset mutes it; playing it anyway") }
        let stemLayout = try stems.map { _ in try OutputLayout.stems(preset: loaded, mode: stemOutputs) }
        if let stemLayout, stemLayout.buses.contains("master") {
            throw InputError(file: loaded.file, "--stems: a voice is named 'master', the master's own stem; rename the voice")
        }
        let renderer = try OfflineRenderer(preset: loaded, sampleRate: rate, periodFrames: period, solo: solo, messages: source.messages,
                                           inputFile: input, stems: stemLayout.map { .buses($0) } ?? .none, isolatePlugins: isolatePlugins,
                                           midiClock: midiClock != nil)
        let frames = duration.map { Int64(($0 * Double(rate)).rounded()) }
            ?? (source.isSessionLog ? source.endFrame : source.endFrame + Int64(2 * rate))
        let events = try eventsOut.map { try EventLog(path: $0, voiceNames: renderer.engine.handle.voiceNames) }
        var plot = (metersPlot ?? webReport).map { _ in MetersPlot(sampleRate: rate, secondsPerRevolution: plotRevolution) }
        var fired: [FiredVoice] = []
        let keepsFired = webReport != nil
        let watchdog = watchdogSeconds.map { RenderWatchdog(handle: renderer.engine.handle, seconds: $0, finish: renderer.finishStuck,
                                                               stopSignal: stopSignal) }
        defer { watchdog?.stop() }
        let render = try renderer.render(frames: frames, to: out, stems: stems, onFired: events == nil && !keepsFired ? nil : { report in
                                             events?.write(report)
                                             if keepsFired { fired.append(report) }
                                         },
                                         onPeriod: plot == nil ? nil : { plot!.add(left: $0, right: $1, frames: $2) },
                                         progress: progress, shouldStop: shouldStop, say: say)
        if let midiClock { try MIDIClockFile.write(renderer.clockMessages, sampleRate: rate, to: midiClock) }
        if let metersPlot, let plot { try plot.write(to: metersPlot) }
        if let webReport, let plot {
            try report(loaded: loaded, frames: render.frames, voiceNames: renderer.engine.handle.voiceNames, meters: plot,
                       messages: source.messages, fired: fired).write(to: webReport)
        }
        for message in renderer.engine.handle.drainPluginLogs() { say("plugin \(message)") }
        try events?.close()
        return Summary(render: render, out: out, rejectedTempos: source.rejectedCount + render.rejectedTempos, metersPlot: metersPlot,
                       webReport: webReport,
                       silentSolo: soloed.flatMap { render.voicesFired == 0 ? "--solo \($0.name) fired nothing: "
                           + Self.silence(of: $0, beats: render.beats, input: input) : nil },
                       stopped: shouldStop?() ?? false)
    }

    /// The video's pose messages among the sessions'; the render as long as the longer.
    private func addPose(_ spec: String, to source: inout SessionSource, loaded: LoadedPreset) throws {
        guard case .file(let file) = try PoseSourceSpec.parse(spec) else { return }
        let engineRegions = try loaded.regionTable().names
        let pose = try PoseRecording.messages(file: file, models: try PoseModelFiles.find(), regionNames: engineRegions,
                                              regionModel: loaded.preset.regionModel, sampleRate: rate, delay: poseDelay)
        source.messages = (source.messages + pose.messages).sorted { $0.frame < $1.frame }
        source.endFrame = max(source.endFrame, pose.endFrame)
    }

    /// The web report: the radial trace, the first performer's heart rate and the fired voices.
    private func report(loaded: LoadedPreset, frames: Int64, voiceNames: [String], meters: MetersPlot, messages: [ControlMessage],
                        fired: [FiredVoice]) -> WebReport {
        var report = WebReport(title: "pulsejack: \(loaded.preset.name ?? "preset") on \(sessions.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))",
                               sampleRate: rate, frames: frames, voiceNames: voiceNames, meters: meters)
        report.tempos = messages.compactMap { message in
            if case .tempo(let bpm) = message.event, message.performer == 0, message.frame < frames { return (max(0, message.frame), bpm) }
            return nil
        }
        report.fired = fired
        return report
    }

    /// Why a soloed voice fired nothing in a render of `beats` beats.
    public static func silence(of voice: Preset.VoiceDefinition, beats: Int, input: String?) -> String {
        if voice.option("input")?.flag == true {
            return input == nil ? "it convolves the audio input (input: true); give one with --input" : "it convolves the input, which stayed silent"
        }
        if !VoiceFields.onBeat.value(in: voice) {
            return "it does not play on the beat (on_beat: false); only triggers, MIDI notes or regions fire it, and the session has none for it"
        }
        if beats == 0 { return "the session has no heartbeat (no bpm, rr, ppg or beat entries)" }
        if let pair = voice.together {
            return "it fires only where \(pair.joined(separator: "'s and "))'s beats fall within \(Int(VoiceFields.windowMS.value(in: voice))) ms of each other, and they never did"
        }
        let every = VoiceFields.every.value(in: voice)
        return "it plays every \(every == 1 ? "beat" : "\(every)th beat"), and the session's \(beats) beat\(beats == 1 ? "" : "s") gave it none"
    }
}
