import Renders
import UserFiles
import Runs
import ArgumentParser
import Pose
import Foundation
import Presets
import Engine

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a session offline to a 32-bit float WAV file, far faster than real time.")

    @Option(help: presetHelp, completion: Completions.presets) var preset: String = ShippedPresets.defaultPreset
    @Option(help: ArgumentHelp("The session: HealthKit heart-rate JSON, a CSV (time,bpm | time,beat | time,rr | time,ppg | time,lx,ly,rx,ry | time,alpha,beta,delta,theta,gamma), or a session log from run --record-session. With the preset's performers, one per performer as NAME=FILE (repeatable; without a name: the first performer).", valueName: "[PERFORMER=]FILE")) var session: [String] = []
    @Option(help: "The WAV file to write.") var out: String
    @Option(help: ArgumentHelp("Play the drum regions with the body in a video, on the file's own time stamps (as run --pose video:FILE; needs LiteRT and the models: make deps); with or without a --session.", valueName: "video:FILE")) var pose: String?
    @Option(name: .customLong("pose-delay"), help: ArgumentHelp("Seconds from a video frame's time stamp to its sound, as live.", valueName: "SECONDS")) var poseDelay: Double = PoseInput.defaultDelay
    @Option(name: .customLong("events-out"), help: "Write every fired voice as one JSON object per line.") var eventsOut: String?
    @Option(name: .customLong("midi-clock"), help: ArgumentHelp("Also write the MIDI clock a live run's --midi-clock sends (Start, 24 clocks a beat of the grid heart, Stop) as a MIDI file whose tick is one frame.", valueName: "FILE")) var midiClock: String?
    @Option(help: "Sample rate in Hz.") var rate: Int = 48000
    @Option(help: "Seconds to render (default: the session's length plus 2 s; a session log's own length).") var duration: Double?
    @Option(help: "Render only this voice.", completion: Completions.voices) var solo: String?
    @Option(help: "Frames per period, as a JACK period.") var period: Int = 256
    @Option(help: "An audio file played into the engine's input (in_L/in_R), for dense convolution voices.") var input: String?
    @Option(help: ArgumentHelp("Seconds a period may take before the render stops, naming the plugin stuck in its run (exit status 70).", valueName: "SECONDS")) var watchdog = 10.0
    @Flag(name: .customLong("isolate-plugins"), help: "Host every LV2 plugin in a process of its own (the same samples as in process; a crash costs that plugin, not the render).") var isolatePlugins = false
    @Option(name: .customLong("meters-plot"), help: "Also draw the peak and RMS level of each channel as a radial trace (Radial Audio) into this SVG file.") var metersPlot: String?
    @Option(name: .customLong("plot-revolution"), help: "Seconds per revolution of the meters plot.") var plotRevolution: Double = 10
    @Option(name: .customLong("web-report"), help: "Also write a self-contained HTML page: the radial level trace, the heart-rate curve and every fired voice on a timeline.") var webReport: String?
    @Option(help: ArgumentHelp("Also write one WAV per voice into this folder (<voice>.wav: the voice after its gain, pan and inserts), and master.wav (the mix, after the master's inserts and stage): all the same length and sample-aligned, for a DAW.", valueName: "DIR")) var stems: String?
    @Option(help: ArgumentHelp("With --stems: a stem per voice, or per group (the voices' group:); default: groups when the preset says outputs: groups, else voices.", valueName: "voices|groups")) var outputs: String?

    func validate() throws {
        if let outputs {
            guard stems != nil else { throw ValidationError("--outputs goes with --stems in a render (live ports: run --outputs)") }
            guard outputs == "voices" || outputs == "groups" else {
                throw ValidationError("--outputs \(outputs): a render's stems are per voice or per group (voices or groups)")
            }
        }
        do { try job().check() } catch let problem as OptionProblem { throw refusal(problem) }
    }

    /// The render these options ask for.
    func job() -> RenderJob {
        var job = RenderJob(preset: preset, sessions: session, out: out)
        (job.eventsOut, job.rate, job.duration, job.solo, job.period, job.input) = (eventsOut, rate, duration, solo, period, input)
        (job.metersPlot, job.plotRevolution, job.webReport, job.stems) = (metersPlot, plotRevolution, webReport, stems)
        job.stemOutputs = outputs.flatMap(OutputLayout.Mode.init(rawValue:))
        (job.pose, job.poseDelay, job.midiClock) = (pose, poseDelay, midiClock)
        return job
    }

    func run() throws {
        let signals = StopSignals()
        var job = job()
        job.shouldStop = { signals.stopping }
        job.stopSignal = { signals.signal }
        (job.watchdogSeconds, job.isolatePlugins) = (watchdog, isolatePlugins)
        let bar = isatty(STDERR_FILENO) != 0 ? ProgressBar() : nil
        job.progress = bar.map { bar in { bar.show($0) } }
        job.say = { FileHandle.standardError.write(Data("pulsejack: \($0)\n".utf8)) }
        do {
            let summary = try job.run()
            bar?.finish()
            print(summary.stopped ? "interrupted by \(signals.name): \(summary) (a finished file)" : "\(summary)")
        } catch let error as InputError {
            throw fail(error)
        }
        reportHeldBackWarnings()
        if signals.stopping { throw ExitCode(signals.exitCode) }
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
