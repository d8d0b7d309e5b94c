import ArgumentParser
import Runs

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

    func run() throws {
        let signals = StopSignals()
        var study = StudyRun(clips: clips, out: out)
        study.duration = duration
        study.baseline = baseline
        study.replay = replay
        study.seed = seed
        study.oscPort = oscPort
        study.shouldStop = { signals.stopping }
        study.say = { print($0) }
        study.warn = { warn($0) }
        do {
            let outcome = try study.run()
            print("study: \(outcome.summary.clip), \(outcome.samples) heart-rate samples → \(outcome.folder)")
        } catch {
            throw fail(error)
        }
    }
}
