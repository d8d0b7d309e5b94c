import ArgumentParser
import Runs
import Renders

/// The ResearchKit music study: a random clip plays for a set time while the heart rate is
/// recorded, before and during it; each run is saved in its own folder.
struct Study: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a random clip while recording the heart rate; save the samples (HealthKit JSON), the clip's name and a summary.",
        discussion: "Live, the heart rate comes from OSC (/pulse/bpm, /pulse/rr …) on a running JACK server; with --replay it comes from a recorded session and the study runs offline.")

    @Option(help: "The folder of clips (any sound files libsndfile reads).") var clips: String
    @Option(help: "Seconds the clip plays.") var duration: Double = 30
    @Option(help: "Seconds of heart rate recorded before the clip starts.") var baseline: Double = 10
    @Option(help: "The folder that receives one folder per run.") var out: String
    @Option(help: "A heart session (HealthKit JSON, CSV or session log) to use instead of live input.") var replay: String?
    @Option(help: "Seed for the clip choice (default: random).") var seed: UInt64?
    @Option(name: .customLong("osc-port"), help: "UDP port for OSC input when live.") var oscPort: UInt16 = 9000
    @Flag(help: "Live: open Lab Streaming Layer outlets (client pulsejack-study): Markers clip/start NAME and clip/stop NAME stamped with when they are heard, beat/… for each heartbeat, and the heart stream. Needs liblsl (make deps).") var lsl = false
    @Option(help: ArgumentHelp("Live: read the heart from a Lab Streaming Layer stream instead of OSC (an ECG, PPG or RR stream).", valueName: "lsl:NAME")) var heart: String?

    func validate() throws {
        do { try study().check() } catch let problem as OptionProblem { throw refusal(problem) }
    }

    /// The study these options ask for.
    func study() -> StudyRun {
        var study = StudyRun(clips: clips, out: out)
        (study.duration, study.baseline, study.replay, study.seed, study.oscPort) = (duration, baseline, replay, seed, oscPort)
        (study.lsl, study.heart) = (lsl, heart)
        return study
    }

    func run() throws {
        let signals = StopSignals()
        var study = study()
        (study.shouldStop, study.say, study.warn) = ({ signals.stopping }, { print($0) }, { warn($0) })
        do {
            let outcome = try study.run()
            print("study: \(outcome.summary.clip), \(outcome.samples) heart-rate samples → \(outcome.folder)")
        } catch {
            throw fail(error)
        }
    }
}
