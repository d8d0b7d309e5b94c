import Foundation
import Inputs
import Realtime
import Engine
import JackBackend
import Presets
import SoundFiles

/// A live run following its server's sample rate (PipeWire's `clock.force-rate`, a graph that
/// switched for a device, a server back at another rate). JACK's callback records the rate and
/// the process thread parks the engine, silent, the moment it runs at a rate the engine was not
/// built for; each tick, this rebuilds the preset's engine at the new rate — its sounds
/// resampled, its plugins instantiated at the rate with their states and controls carried over —
/// carries the hearts' tempo and beat phase over in seconds, starts the recording's next take at
/// the new rate (the session log stays one file at its own rate), and offers it to the process
/// thread. Once
/// it runs, the old engine and take are finished here, and the run says so. Control thread.
final class RateFollower {
    /// The engine the process thread runs (or, parked, ran last).
    private(set) var engine: RealtimeEngine
    /// The recording's take being written, for the status too.
    let take: LockedBox<OutputRecorder?>
    /// Each finished take: its path, frames and losses.
    private(set) var finishedTakes: [FinishedTake] = []
    private let client: JackClient
    private let handle: EngineHandle
    private let logs: RunLogs
    private let build: (_ rate: Int) throws -> EngineSetup
    private let makeTake: (_ path: String, _ rate: Int) throws -> OutputRecorder
    private let log: @Sendable (String) -> Void
    private let say: @Sendable (String) -> Void
    /// The rebuild on offer, and the seconds it took.
    private var offered: (swap: EngineSwap, built: Double)?
    /// A rate whose rebuild failed: not tried again until the server moves.
    private var failedRate: Int?
    /// Whether the parked engine is this thread's (claimed), until a rebuilt one runs.
    private var claimed = false
    /// What the next rebuild carries over from when it is not the parked engine: a rebuild
    /// withdrawn because the server moved on again took its state.
    private var source: RealtimeEngine?
    private var takeNumber = 1
    /// The first take's path: the next ones are numbered beside it.
    private let firstTake: String?
    /// Where carried plugin states live while the run does (they may name files there).
    private let stateFolder: String

    init(engine: RealtimeEngine, take: LockedBox<OutputRecorder?>, client: JackClient, logs: RunLogs,
         build: @escaping (Int) throws -> EngineSetup, makeTake: @escaping (String, Int) throws -> OutputRecorder,
         log: @escaping @Sendable (String) -> Void, say: @escaping @Sendable (String) -> Void) {
        self.engine = engine
        self.take = take
        firstTake = take.withLockedValue { $0?.path }
        self.client = client
        handle = engine.handle
        self.logs = logs
        self.build = build
        self.makeTake = makeTake
        self.log = log
        self.say = say
        stateFolder = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-\(getpid())-rate-states").path
    }

    /// Each tick, first: a swap the process thread made is finished; a parked engine is
    /// claimed and gets its rebuild; a rebuild the server's rate left behind is withdrawn.
    func tick() {
        if let swap = client.takeSwapped() { finish(swap) }
        let rate = client.sampleRate
        if let pending = offered, pending.swap.engine.sampleRate != rate, let back = client.withdrawOffer() {
            source = back.engine
            abandon(back)
            offered = nil
        }
        guard offered == nil, rate != failedRate, client.waitsForRebuiltEngine else { return }
        if !claimed {
            guard client.claimParkedEngine() else { return }
            claimed = true
        }
        rebuild(at: rate)
    }

    /// The claimed engine's successor at `rate`, offered to the process thread. What can fail
    /// (the preset's sounds and plugins at the new rate, the next take's file) comes before
    /// anything is carried over, so a failed rebuild leaves the parked engine as it was.
    private func rebuild(at rate: Int) {
        let began = MonotonicClock.seconds
        let from = source ?? engine
        say("pulsejack: the JACK server runs at \(rate) Hz, the engine at \(from.sampleRate) Hz: silent while it is rebuilt at \(rate) Hz")
        do {
            let next = RealtimeEngine(try build(rate))
            next.warmUp()
            let recorder = try firstTake.map { try makeTake(Self.takePath($0, number: takeNumber + 1), rate) }
            for problem in next.takeOver(from: from, stateFolder: "\(stateFolder)/\(takeNumber + 1)-\(rate)") { log(problem) }
            source = next
            recorder?.start()
            let swap = EngineSwap(engine: next, recorder: recorder)
            logs.engineWillSwitch(at: next.framePosition, rate: rate)
            guard client.offer(swap) else {
                abandon(swap)
                return
            }
            failedRate = nil
            offered = (swap, MonotonicClock.seconds - began)
        } catch {
            failedRate = rate
            if source == nil {
                client.unclaimParkedEngine()
                claimed = false
            }
            log("cannot rebuild the engine at \(rate) Hz: \(error); silent until the server runs at another rate")
        }
    }

    /// The rebuilt engine runs: the handle shows it, the old take and session file end, the old
    /// engine goes.
    private func finish(_ swap: EngineSwap) {
        let old = swap.replacedEngine
        claimed = false
        source = nil
        handle.adopt(swap.engine)
        engine = swap.engine
        takeNumber += 1
        let built = offered.map { Int(($0.built * 1000).rounded()) } ?? 0
        offered = nil
        let silent = Int((Double(swap.silentFrames) * 1000 / Double(swap.engine.sampleRate)).rounded())
        var line = "pulsejack: now at \(swap.engine.sampleRate) Hz (was \(old?.sampleRate ?? 0) Hz): engine rebuilt in \(built) ms, "
            + "silent \(silent) ms (\(swap.silentFrames) frames); "
            + (handle.publishedTempo.map { "the heart's \($0.plainText) BPM and beat phase kept" } ?? "no tempo yet")
        if let finished = take.withLockedValue({ $0 }) {
            do {
                let ended = try FinishedTake(finished)
                finishedTakes.append(ended)
                line += "; take \(takeNumber - 1) ended: \(ended.frames) frames in \(ended.path)"
            } catch {
                log("\(error)")
            }
            take.withLockedValue { $0 = swap.recorder }
            if let next = swap.recorder { line += "; recording on in \(next.path) at \(swap.engine.sampleRate) Hz" }
        }
        say(line)
    }

    /// An offer not taken: its take's file goes (nothing was written to it).
    private func abandon(_ swap: EngineSwap) {
        guard let recorder = swap.recorder else { return }
        _ = try? recorder.finish()
        try? FileManager.default.removeItem(atPath: recorder.path)
    }

    /// "take.wav" → "take-2.wav": take `number`'s file beside the first.
    static func takePath(_ first: String, number: Int) -> String {
        let url = URL(fileURLWithPath: first)
        let stem = url.deletingPathExtension().lastPathComponent
        let named = url.pathExtension.isEmpty ? "\(stem)-\(number)" : "\(stem)-\(number).\(url.pathExtension)"
        return (first as NSString).deletingLastPathComponent.isEmpty ? named
            : ((first as NSString).deletingLastPathComponent as NSString).appendingPathComponent(named)
    }

    /// At the run's end, the process thread stopped: a swap it made is finished here, an offer
    /// it never took is dropped (its take's file with it), and the carried plugin states go.
    func stop() {
        if let swap = client.takeSwapped() { finish(swap) }
        if let back = client.withdrawOffer() { abandon(back) }
        offered = nil
        try? FileManager.default.removeItem(atPath: stateFolder)
    }
}

/// A recording's take, finished: its path, frames and what a full ring lost.
struct FinishedTake {
    let path: String
    let frames: Int
    let lost: Int
    let overruns: Int

    /// Finishes `recorder`'s take (its header written, its file closed).
    init(_ recorder: OutputRecorder) throws {
        frames = try recorder.finish()
        path = recorder.path
        lost = recorder.framesLost.load(ordering: .relaxed)
        overruns = recorder.overruns.load(ordering: .relaxed)
    }

    /// "; recorded N frames to PATH" and its losses, for the run's summary.
    var summary: String {
        "; recorded \(frames) frames to \(path)" + (overruns > 0 ? " (\(lost) frames lost in \(overruns) overruns)" : "")
    }
}
