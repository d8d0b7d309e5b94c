import Atomics
import Engine
import Foundation
import Inputs
import LSL
import Realtime

/// `--lsl`: pulsejack's outlets on the lab's bus, named after the JACK client, each sample
/// stamped with the moment its frame is heard on LSL's clock (the frame on `LabClock`, plus the
/// output ports' playback latency), whenever the thread got round to sending it:
///
/// - `Markers`, named as the client (`pulsejack`), one string a sample: `beat/PERFORMER` per
///   heartbeat (`beat/1` for an unnamed heart), `voice/NAME` per fired voice, `region/NAME`,
///   `mood/NAME`, `track/FILE`, `clip/start NAME`, `clip/stop NAME`;
/// - a heart stream per performer (`CLIENT-heart`, `CLIENT-heart-NAME`): `bpm`, `rr_ms`,
///   `rmssd_ms`, `sdnn_ms` (NaN until known), one sample per beat at the beat's time;
/// - with a preset's modulations, `CLIENT-modulations`: each modulation's source value, a sample
///   whenever one changed (checked 30 times a second).
///
/// Reports come from the live picture's thread (`report`), marks from the control thread
/// (`mark`); the outlets live on this output's own thread (`pj-lsl-out`), which sleeps on a
/// doorbell. liblsl's calls never run on the process thread.
public final class LSLOutput: Sendable {
    public struct Names: Sendable {
        public var client: String
        public var voices: [String]
        public var regions: [String]
        /// The preset's performers (empty: one unnamed heart).
        public var performers: [String]
        /// Each modulation's source, as the preset names it.
        public var modulationSources: [String]
        public init(client: String, voices: [String], regions: [String], performers: [String], modulationSources: [String]) {
            (self.client, self.voices, self.regions, self.performers, self.modulationSources) = (client, voices, regions, performers, modulationSources)
        }
    }

    /// What the engine reported, at its frame.
    public enum Report: Sendable {
        case beat(performer: Int, frame: Int64)
        case voice(Int, frame: Int64)
        case region(Int, frame: Int64)
        /// Any other marker (`mood/…`, `track/…`, `clip/…`).
        case text(String, frame: Int64)
    }

    public let names: Names
    private let clock: LabClock
    private let handle: EngineHandle
    private let latency: @Sendable () -> Int
    private let moods: MoodWatch?
    private let pending = LockedBox<[Report]>([])
    private let doorbell = Doorbell()
    private let running = ManagedAtomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let streams = LockedBox<[LSLStreamStatus]>([])

    /// Control thread. `latency`: the output ports' playback latency in frames now.
    public init(names: Names, clock: LabClock, handle: EngineHandle, moods: MoodWatch?, latency: @escaping @Sendable () -> Int) throws(LSLError) {
        try LSLLibrary.load()
        self.names = names
        self.clock = clock
        self.handle = handle
        self.moods = moods
        self.latency = latency
    }

    deinit { stop() }

    /// Any thread: reports to stamp and send.
    public func report(_ reports: [Report]) {
        guard !reports.isEmpty else { return }
        pending.withLockedValue { $0 += reports }
        doorbell.ring()
    }

    /// Control thread: a marker at the frame now (or at `frame`).
    public func mark(_ text: String, frame: Int64? = nil) {
        report([.text(text, frame: frame ?? clock.currentFrame)])
    }

    /// Each outlet: name, type, samples sent, whether anyone listens.
    public var status: [LSLStreamStatus] { streams.withLockedValue { $0 } }

    /// Control thread. Opens the outlets on the output's thread (it owns them) and returns once
    /// they are open: a peer resolving right after start finds them.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let opened = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            ThreadName.set("pj-lsl-out")
            run(opened: opened)
            finished.signal()
        }
        thread.start()
        opened.wait()
    }

    /// Control thread. Sends what is pending, closes the outlets and ends the thread.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        doorbell.ring()
        finished.wait()
    }

    // MARK: The output's thread

    private final class Outlets {
        let markers: LSLOutletHandle
        let hearts: [LSLOutletHandle]
        let modulations: LSLOutletHandle?
        var lastBeat: [Int64?]
        var lastSources: [Float]
        var lastMoods: [String?]
        init(markers: LSLOutletHandle, hearts: [LSLOutletHandle], modulations: LSLOutletHandle?, performers: Int, sources: Int) {
            (self.markers, self.hearts, self.modulations) = (markers, hearts, modulations)
            lastBeat = Array(repeating: nil, count: performers)
            lastSources = Array(repeating: .nan, count: sources)
            lastMoods = Array(repeating: nil, count: performers)
        }
    }

    private func open() throws(LSLError) -> Outlets {
        let client = names.client
        let markers = try LSLOutletHandle(name: client, type: "Markers", sourceID: "pulsejack:\(client):markers",
                                          channels: [("marker", "", "Marker")], text: true)
        let heartNames = names.performers.isEmpty ? [""] : names.performers
        var hearts: [LSLOutletHandle] = []
        for performer in heartNames {
            let name = performer.isEmpty ? "\(client)-heart" : "\(client)-heart-\(performer)"
            hearts.append(try LSLOutletHandle(name: name, type: "HeartRate", sourceID: "pulsejack:\(name)",
                                              channels: [("bpm", "bpm", "HeartRate"), ("rr_ms", "ms", "RR"),
                                                         ("rmssd_ms", "ms", "HRV"), ("sdnn_ms", "ms", "HRV")], text: false))
        }
        var modulations: LSLOutletHandle?
        if !names.modulationSources.isEmpty {
            modulations = try LSLOutletHandle(name: "\(client)-modulations", type: "Modulation", sourceID: "pulsejack:\(client):modulations",
                                              channels: names.modulationSources.map { ($0, "", "Modulation") }, text: false)
        }
        return Outlets(markers: markers, hearts: hearts, modulations: modulations, performers: heartNames.count, sources: names.modulationSources.count)
    }

    private func run(opened: DispatchSemaphore) {
        let outlets: Outlets
        do {
            outlets = try open()
        } catch {
            opened.signal()
            streams.withLockedValue { $0 = [LSLStreamStatus(direction: "out", name: names.client, type: "Markers", rate: 0, problem: error.description)] }
            return
        }
        publishStatus(outlets)
        opened.signal()
        var latencyFrames = latency(), latencyRead = MonotonicClock.seconds
        while true {
            let stopping = !running.load(ordering: .acquiring)
            if MonotonicClock.seconds - latencyRead > 0.5 { (latencyFrames, latencyRead) = (latency(), MonotonicClock.seconds) }
            let reports = pending.withLockedValue { reports in defer { reports.removeAll(keepingCapacity: true) }; return reports }
            for report in reports { send(report, outlets, latency: latencyFrames) }
            watchMoods(outlets, latency: latencyFrames)
            sendModulations(outlets, latency: latencyFrames)
            publishStatus(outlets)
            if stopping { break }
            doorbell.wait(seconds: 1 / 30)
        }
    }

    private func heard(_ frame: Int64, latency: Int) -> Double {
        clock.seconds(atFrame: frame + Int64(latency))
    }

    private func send(_ report: Report, _ outlets: Outlets, latency: Int) {
        let text: String, frame: Int64
        switch report {
        case .beat(let performer, let at):
            frame = at
            text = "beat/" + (performer < names.performers.count ? names.performers[performer] : "\(performer + 1)")
            if performer < outlets.hearts.count { sendHeart(performer, frame: at, outlets, latency: latency) }
        case .voice(let index, let at):
            (frame, text) = (at, "voice/" + (index < names.voices.count ? names.voices[index] : "\(index)"))
        case .region(let index, let at):
            (frame, text) = (at, "region/" + (index < names.regions.count ? names.regions[index] : "\(index)"))
        case .text(let marker, let at):
            (frame, text) = (at, marker)
        }
        outlets.markers.push(text, at: heard(frame, latency: latency))
    }

    private func sendHeart(_ performer: Int, frame: Int64, _ outlets: Outlets, latency: Int) {
        let rate = Double(handle.sampleRate)
        let rr = outlets.lastBeat[performer].map { Double(frame - $0) / rate * 1000 } ?? .nan
        outlets.lastBeat[performer] = frame
        let variability = handle.variability.reading(performer)
        let bpm = handle.publishedTempo(of: performer) ?? (rr.isFinite && rr > 0 ? 60_000 / rr : .nan)
        outlets.hearts[performer].push([Float(bpm), Float(rr), Float(variability.rmssd ?? .nan), Float(variability.sdnn ?? .nan)],
                                       at: heard(frame, latency: latency))
    }

    private func watchMoods(_ outlets: Outlets, latency: Int) {
        guard let moods else { return }
        for performer in outlets.lastMoods.indices {
            let mood = moods.mood(of: performer)
            guard mood != outlets.lastMoods[performer] else { continue }
            outlets.lastMoods[performer] = mood
            guard let mood else { continue }
            let whose = names.performers.isEmpty ? "" : names.performers[performer] + "/"
            send(.text("mood/" + whose + mood, frame: clock.currentFrame), outlets, latency: latency)
        }
    }

    private func sendModulations(_ outlets: Outlets, latency: Int) {
        guard let modulations = outlets.modulations else { return }
        let values = (0..<outlets.lastSources.count).map { handle.modulationReadings.reading($0).source }
        guard zip(values, outlets.lastSources).contains(where: { $0.bitPattern != $1.bitPattern }) else { return }
        outlets.lastSources = values
        modulations.push(values, at: heard(clock.currentFrame, latency: latency))
    }

    private func publishStatus(_ outlets: Outlets) {
        let all = [outlets.markers] + outlets.hearts + (outlets.modulations.map { [$0] } ?? [])
        streams.withLockedValue { streams in
            streams = all.map { outlet in
                var status = LSLStreamStatus(direction: "out", name: outlet.info.name, type: outlet.info.type, rate: 0)
                status.samples = outlet.samples
                status.consumers = outlet.hasConsumers
                return status
            }
        }
    }
}
