import ArgumentParser
import Control
import Foundation
import JackEngine

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a session offline to a 32-bit float WAV file, far faster than real time.")

    @Option(help: "The preset: a preset.yaml file or a folder holding one.")
    var preset: String = ShippedPresets.defaultPreset

    @Option(help: ArgumentHelp("The session: HealthKit heart-rate JSON, a CSV (time,bpm | time,beat | time,rr | time,ppg | time,lx,ly,rx,ry | time,alpha,beta,delta,theta,gamma), or a session log from run --record-session. With the preset's performers, one per performer as NAME=FILE (repeatable; without a name: the first performer).", valueName: "[PERFORMER=]FILE"))
    var session: [String] = []

    @Option(help: "The WAV file to write.")
    var out: String

    @Option(name: .customLong("events-out"), help: "Write every fired voice as one JSON object per line.")
    var eventsOut: String?

    @Option(help: "Sample rate in Hz.")
    var rate: Int = 48000

    @Option(help: "Seconds to render (default: the session's length plus 2 s; a session log's own length).")
    var duration: Double?

    @Option(help: "Render only this voice.")
    var solo: String?

    @Option(help: "Frames per period, as a JACK period.")
    var period: Int = 256

    @Option(help: "An audio file played into the engine's input (in_L/in_R), for dense convolution voices.")
    var input: String?

    @Option(name: .customLong("meters-plot"), help: "Also draw the peak and RMS level of each channel as a radial trace (Radial Audio) into this SVG file.")
    var metersPlot: String?

    @Option(name: .customLong("plot-revolution"), help: "Seconds per revolution of the meters plot.")
    var plotRevolution: Double = 10

    @Option(name: .customLong("web-report"), help: "Also write a self-contained HTML page: the radial level trace, the heart-rate curve and every fired voice on a timeline.")
    var webReport: String?

    @Option(help: ArgumentHelp("Also write one WAV per voice into this folder (<voice>.wav: the voice after its gain, pan and inserts), and master.wav (the mix, after the master's inserts and stage): all the same length and sample-aligned, for a DAW.", valueName: "DIR"))
    var stems: String?

    @Option(help: ArgumentHelp("With --stems: a stem per voice, or per group (the voices' group:); default: groups when the preset says outputs: groups, else voices.", valueName: "voices|groups"))
    var outputs: String?

    func validate() throws {
        if let outputs {
            guard stems != nil else { throw ValidationError("--outputs goes with --stems in a render (live ports: run --outputs)") }
            guard outputs == "voices" || outputs == "groups" else {
                throw ValidationError("--outputs \(outputs): a render's stems are per voice or per group (voices or groups)")
            }
        }
        guard !session.isEmpty else { throw ValidationError("Missing expected argument '--session <[PERFORMER=]FILE>'") }
        guard (8000...192_000).contains(rate) else { throw ValidationError("--rate \(rate) is outside 8000…192000 Hz") }
        if let duration, !(duration.isFinite && duration > 0 && duration <= HeartSession.maximumSeconds) {
            throw ValidationError("--duration \(duration) is not a number of seconds in (0, 86400]")
        }
        guard (1...8192).contains(period) else { throw ValidationError("--period \(period) is outside 1…8192") }
        guard plotRevolution.isFinite, (0.1...3600).contains(plotRevolution) else {
            throw ValidationError("--plot-revolution \(plotRevolution) is outside 0.1…3600 s")
        }
    }

    func run() throws {
        let signals = StopSignals()
        do {
            var job = RenderJob(preset: preset, sessions: session, out: out, eventsOut: eventsOut, rate: rate,
                                duration: duration, solo: solo, period: period, input: input,
                                metersPlot: metersPlot, plotRevolution: plotRevolution)
            job.webReport = webReport
            job.stems = stems
            job.stemOutputs = outputs.flatMap(OutputLayout.Mode.init(rawValue:))
            job.signals = signals
            print(try job.run())
        } catch let error as InputError {
            throw fail(error)
        }
        reportHeldBackWarnings()
        if signals.stopping { throw ExitCode(signals.exitCode) }
    }
}

/// One offline render, shared by `render` and `demo`.
struct RenderJob {
    /// `--stems DIR`, and `--outputs`: per voice or per group (nil: as the preset says).
    var stems: String?
    var stemOutputs: OutputLayout.Mode?
    var preset: String
    /// `[PERFORMER=]FILE` each.
    var sessions: [String]
    var out: String
    var eventsOut: String?
    var rate: Int
    var duration: Double?
    var solo: String?
    var period: Int
    var input: String?
    var metersPlot: String?
    var plotRevolution = 10.0
    var webReport: String?
    /// SIGINT, SIGTERM or SIGHUP stop the render at the next period, with the file finished.
    var signals: StopSignals?

    func run() throws -> String {
        let loaded = try LoadedPreset.load(path: preset)
        let source = try PerformerSessions.load(sessions.map(PerformerSessions.Spec.init), preset: loaded, sampleRate: rate)
        warn(rejections: source.rejections, total: source.rejectedCount)
        let isLog = source.isSessionLog
        let messages = source.messages
        let soloed = solo.flatMap { name in loaded.voices.first { $0.definition.name == name }?.definition }
        if let soloed, soloed.mute == true || soloed.enabled == false {
            FileHandle.standardError.write(Data("pulsejack: --solo \(soloed.name): the preset mutes it; playing it anyway\n".utf8))
        }
        let stemLayout = try stems.map { _ in try OutputLayout.stems(preset: loaded, mode: stemOutputs) }
        if let stemLayout, stemLayout.buses.contains("master") {
            throw InputError(file: loaded.file, "--stems: a voice is named 'master', the master's own stem; rename the voice")
        }
        let renderer = try OfflineRenderer(preset: loaded, sampleRate: rate, periodFrames: period, solo: solo,
                                           messages: messages, inputFile: input, stems: stemLayout.map { .buses($0) } ?? .none)
        let frames = duration.map { Int64(($0 * Double(rate)).rounded()) } ?? (isLog ? source.endFrame : source.endFrame + Int64(2 * rate))

        var events: EventLog?
        if let eventsOut { events = try EventLog(path: eventsOut, voiceNames: renderer.engine.handle.voiceNames) }
        let bar = isatty(STDERR_FILENO) != 0 ? ProgressBar() : nil
        var plot = (metersPlot ?? webReport).map { _ in MetersPlot(sampleRate: rate, secondsPerRevolution: plotRevolution) }
        var fired: [FiredVoice] = []
        let keepsFired = webReport != nil
        let summary = try renderer.render(frames: frames, to: out, stems: stems, onFired: events == nil && !keepsFired ? nil : { report in
                                              events?.write(report)
                                              if keepsFired { fired.append(report) }
                                          },
                                          onPeriod: plot == nil ? nil : { plot!.add(left: $0, right: $1, frames: $2) },
                                          progress: bar.map { bar in { bar.show($0) } },
                                          shouldStop: signals.map { signals in { signals.stopping } })
        if let metersPlot, let plot { try plot.write(to: metersPlot) }
        if let webReport, let plot {
            var report = WebReport(title: "pulsejack: \(loaded.preset.name ?? "preset") on \(sessions.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))",
                                   sampleRate: rate, frames: summary.frames, voiceNames: renderer.engine.handle.voiceNames, meters: plot)
            report.tempos = messages.compactMap { message in
                // The first performer's heart rate.
                if case .tempo(let bpm) = message.event, message.performer == 0, message.frame < summary.frames {
                    return (max(0, message.frame), bpm)
                }
                return nil
            }
            report.fired = fired
            try report.write(to: webReport)
        }
        bar?.finish()
        for message in renderer.engine.handle.drainPluginLogs() {
            FileHandle.standardError.write(Data("pulsejack: plugin \(message)\n".utf8))
        }
        try events?.close()
        let rejected = source.rejectedCount + summary.rejectedTempos
        var line = String(format: "rendered %lld frames (%.2f s at %d Hz), %d beats, %d voices fired, in %.3f s (%.0f× real time) → %@",
                          summary.frames, Double(summary.frames) / Double(rate), rate, summary.beats,
                          summary.voicesFired, summary.secondsTaken, summary.realTimeFactor, out)
        if rejected > 0 { line += "; \(rejected) tempo update\(rejected == 1 ? "" : "s") rejected" }
        line += "; \(summary.counters.clippedSamples) clipped samples"
        if let metersPlot { line += "; meters plot → \(metersPlot)" }
        if let webReport { line += "; web report → \(webReport)" }
        if let soloed, summary.voicesFired == 0 { line += "; --solo \(soloed.name) fired nothing: \(Self.silence(of: soloed, beats: summary.beats, input: input))" }
        if let signals, signals.stopping { line = "interrupted by \(signals.name): " + line + " (a finished file)" }
        return line
    }
}

extension RenderJob {
    /// Why a soloed voice fired nothing in this render.
    static func silence(of voice: Preset.VoiceDefinition, beats: Int, input: String?) -> String {
        if voice.option("input")?.flag == true {
            return input == nil ? "it convolves the audio input (input: true); give one with --input" : "it convolves the input, which stayed silent"
        }
        if voice.onBeat == false {
            return "it does not play on the beat (on_beat: false); only triggers, MIDI notes or regions fire it, and the session has none for it"
        }
        if beats == 0 { return "the session has no heartbeat (no bpm, rr, ppg or beat entries)" }
        if let pair = voice.together {
            return "it fires only where \(pair.joined(separator: "'s and "))'s beats fall within \(Int(voice.windowMS ?? 30)) ms of each other, and they never did"
        }
        let every = voice.every ?? 1
        return "it plays every \(every == 1 ? "beat" : "\(every)th beat"), and the session's \(beats) beat\(beats == 1 ? "" : "s") gave it none"
    }
}

/// A progress bar on standard error, for a terminal.
final class ProgressBar {
    func show(_ fraction: Double) {
        let width = 40
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        FileHandle.standardError.write(Data(String(format: "\r[%@] %3d%%", bar, Int(fraction * 100)).utf8))
    }

    func finish() { FileHandle.standardError.write(Data("\n".utf8)) }
}
