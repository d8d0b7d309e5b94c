import Atomics
import Inputs
import Foundation
import Realtime
import Engine
import JackBackend
import Presets

/// What a live picture (the web page) sees of a running session, as JSON text ready to send:
/// the layout (voices, regions, bands, insert controls), the state as named fields (the tempo,
/// the dropout, the mode and pattern, each voice's settings, the insert controls, the mood, the
/// track, the status counters), and a stream of outputs — each heartbeat, fired voice and region
/// hit as it is reported, and 60 times a second a meter frame with the fields that changed.
///
/// Its thread (`pj-view`) sleeps on one doorbell until there is work: the process thread rings
/// it after a period that reported something (only while a page is open, or the events log
/// reads the fired voices) and when the copy of its settings asked for is made; the meter
/// thread rings it with each reading (60 a second, only while a page is open). Each reading
/// asks the engine for a copy of its settings (`EngineView`) and sends the frame once the
/// process thread has made it (within a period), so a change made by OSC, MIDI or a page is in
/// the next frame. With no page open it does nothing at all. Times are wall-clock milliseconds
/// (Unix epoch): `heard` is a frame mapped through JACK's clock plus the output ports' playback
/// latency.
public final class LiveView: Sendable {
    public enum Output: Sendable {
        /// A heartbeat, fired voice or region hit.
        case event(String)
        /// A meter frame, and the state fields that changed since the last frame (a delta message), if any.
        case frame(meter: String, delta: String?)
    }

    /// Status counters are read this often (frames): they ask JACK, and nobody reads them faster.
    static let statusEvery = 15

    /// The static part, sent once with the snapshot.
    public let layout: String
    /// The preset's modulations: each meter frame carries their values.
    private let modulationCount: Int
    /// Commands from pages, into the engine.
    public let page: PageInput
    private let handle: EngineHandle
    private let client: JackClient
    private let moods: MoodWatch?
    /// The watch over every heart source (the page shows the first performer's dropout).
    private let hearts: HeartWatch?
    private let view: EngineView
    private let observations: SPSCRing<EngineObservation>.Consumer
    private let fired: SPSCRing<FiredVoice>.Consumer
    /// Fired voices kept for the events log (`--events-out`), which reads them in `takeFired`.
    private let firedForLog: LockedBox<[FiredVoice]>?
    private let regionNames: [String]
    private let status: @Sendable () -> [(String, StatusValue)]
    private let pendingMeter = LockedBox<MeterBallistics.Reading?>(nil)
    private let fields = LockedBox<[(String, String)]>([])
    private let sink = LockedBox<(@Sendable (Output) -> Void)?>(nil)
    private let track = LockedBox<String?>(nil)
    /// The camera's skeleton over the regions, as JSON (`run --pose`).
    private let bodyPose = LockedBox<(@Sendable () -> String?)?>(nil)
    private let extraStatus = LockedBox<(@Sendable () -> [(String, StatusValue)])?>(nil)
    private let running = ManagedAtomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Whether the engine reports, and the doorbell the view's thread sleeps on (rung by the
    /// process thread, the meter thread, a page opening and `stop`).
    private let reports = ReportListeners()
    private var doorbell: Doorbell { reports.doorbell }
    private let keepsFiredForLog: Bool
    private let pagesOpen = ManagedAtomic<Int>(0)
    /// Who else takes every report (the LSL outlets), on the view's thread.
    private let taps = LockedBox<[@Sendable ([Report]) -> Void]>([])

    /// A fired voice, heartbeat or region hit, at its frame: what a tap gets.
    public struct Report: Sendable {
        public enum Kind: Sendable { case fired, beat, region }
        public var kind: Kind
        /// The voice, the performer, or the region.
        public var index: Int
        public var frame: Int64
    }
    private let pagesChanged = LockedBox<(@Sendable () -> Void)?>(nil)
    /// Frames sent, and the ones whose settings copy did not come (the engine not running).
    public let framesSent = ManagedAtomic<Int>(0)
    public let framesWithoutCopy = ManagedAtomic<Int>(0)
    /// The view thread's pace: frames made so far, and the status and playback latency last read
    /// (every `statusEvery` frames). Locked: `start` and `stop` use them too, before the view
    /// thread runs and after it ended.
    private let pace = LockedBox(Pace())
    private struct Pace {
        var frameNumber = 0
        var playbackLatency = 0
        var status = "{}"
    }

    /// Offline. Adds to `setup` what the picture reads (its observations, its view)
    /// and the page's command ring.
    public init(loaded: LoadedPreset, setup: inout EngineSetup, client: JackClient, moods: MoodWatch?, hearts: HeartWatch?, routes: OSCRoutes,
         fired: SPSCRing<FiredVoice>, keepFiredForLog: Bool, secondsPerRevolution: Double,
         status: @escaping @Sendable () -> [(String, StatusValue)]) {
        let handle = setup.handle
        self.handle = handle
        self.client = client
        self.moods = moods
        self.hearts = hearts
        self.status = status
        self.fired = fired.consumer
        firedForLog = keepFiredForLog ? LockedBox([]) : nil
        keepsFiredForLog = keepFiredForLog
        reports.listen(keepFiredForLog)
        setup.reportListeners = reports
        regionNames = handle.regionNames
        page = PageInput(routes: routes, hearts: hearts)
        let observationRing = SPSCRing<EngineObservation>(minimumCapacity: 4096)
        observations = observationRing.consumer
        setup.observations = observationRing
        view = EngineView(for: setup, answered: reports.doorbell)
        setup.view = view

        let kinds = Dictionary(loaded.voices.map { ($0.definition.name, $0.definition.kind.rawValue) }, uniquingKeysWith: { first, _ in first })
        let voices = handle.voiceNames.map { name in
            JSONText.object([("name", JSONText.string(name)), ("kind", JSONText.string(kinds[name] ?? ""))])
        }
        modulationCount = setup.modulations.count
        let modulations = Self.modulationLayout(setup.modulations, controls: view.controls)
        let controls = view.controls.map { control in
            JSONText.object([("place", JSONText.string(control.place)), ("number", String(control.number)),
                             ("plugin", JSONText.string(control.plugin)), ("symbol", JSONText.string(control.symbol)),
                             ("name", JSONText.string(control.name)), ("min", JSONText.number(control.minimum)),
                             ("max", JSONText.number(control.maximum))])
        }
        layout = JSONText.object([
            ("preset", JSONText.string(loaded.preset.name ?? (loaded.file as NSString).lastPathComponent)),
            ("server", JSONText.string(client.server.product)),
            ("sampleRate", String(client.sampleRate)), ("period", String(client.bufferSize)),
            ("meterRate", JSONText.number(MeterPublisher.rate)),
            ("revolutionSeconds", JSONText.number(secondsPerRevolution)), ("floorDB", JSONText.number(MeterBallistics.displayFloor)),
            ("voices", JSONText.array(voices)),
            ("regions", JSONText.array(handle.regionNames.map(JSONText.string))),
            // The hearts: each performer's, then the ensemble's (empty: one unnamed heart).
            ("performers", JSONText.array((loaded.performerNames + (handle.ensemble == nil ? [] : ["ensemble"])).map(JSONText.string))),
            ("bands", JSONText.array(EEGBand.allCases.map { JSONText.string($0.name) })),
            ("modes", JSONText.array(PerformanceMode.allCases.map { JSONText.string("\($0)") })),
            ("controls", JSONText.array(controls)),
            ("modulations", JSONText.array(modulations)),
            ("every", JSONText.array([VoiceParameterRange.every.lowerBound, VoiceParameterRange.every.upperBound].map { String($0) })),
            ("subdivisions", JSONText.array(VoiceParameterRange.subdivisions.map { String($0) })),
            ("gain", JSONText.array([VoiceParameterRange.gain.lowerBound, VoiceParameterRange.gain.upperBound].map { JSONText.number($0) })),
            ("pan", JSONText.array([VoiceParameterRange.pan.lowerBound, VoiceParameterRange.pan.upperBound].map { JSONText.number($0) })),
        ])
    }

    /// Each modulation as the page lays it out: its name, its source and destination, and the
    /// fader it moves (a voice's gain or pan, an insert control by its index in `controls`), if any.
    private static func modulationLayout(_ modulations: [Modulation], controls: [EngineView.InsertControl]) -> [String] {
        modulations.map { modulation in
            var fields: [(String, String)] = [("name", JSONText.string(modulation.name)), ("from", JSONText.string(modulation.from)),
                                              ("to", JSONText.string(modulation.to))]
            switch modulation.destination {
            case .voiceGain(let voice): fields += [("voice", String(voice)), ("parameter", "\"gain\"")]
            case .voicePan(let voice): fields += [("voice", String(voice)), ("parameter", "\"pan\"")]
            case .insertControl(let address):
                if let index = controls.firstIndex(where: { $0.address == address }) { fields.append(("control", String(index))) }
            default: break
            }
            return JSONText.object(fields)
        }
    }

    /// Where the outputs go (the web server's fan-out); called on the view thread.
    public func setSink(_ body: @escaping @Sendable (Output) -> Void) { sink.withLockedValue { $0 = body } }

    /// More status counters (the web server's own), read with the others.
    public func setExtraStatus(_ body: @escaping @Sendable () -> [(String, StatusValue)]) { extraStatus.withLockedValue { $0 = body } }

    /// The state now, as a snapshot message (layout and every field). Any thread.
    public func snapshot() -> String {
        let state = fields.withLockedValue { $0 }
        return JSONText.object([("type", "\"snapshot\""), ("layout", layout), ("state", JSONText.object(state))])
    }

    /// Meter thread: a reading to send (the latest wins).
    public func meter(_ reading: MeterBallistics.Reading) {
        pendingMeter.withLockedValue { $0 = reading }
        doorbell.ring()
    }

    /// Pages open now: the meters run for them, and the engine reports.
    public var pageCount: Int { pagesOpen.load(ordering: .acquiring) }

    /// Called (on the caller's thread) when a page opens or closes: the meters start or stop.
    public func onPagesChanged(_ body: @escaping @Sendable () -> Void) { pagesChanged.withLockedValue { $0 = body } }

    /// A page opened: from now on the engine reports, and the meters run; its first frame carries the status.
    public func pageOpened() {
        if pagesOpen.wrappingIncrementThenLoad(ordering: .acquiringAndReleasing) == 1 {
            pace.withLockedValue { $0.frameNumber = 0 }
            reports.listen(true)
        }
        pagesChanged.withLockedValue { $0 }?()
        doorbell.ring()
    }

    /// A page closed: with none left, the engine stops reporting (unless the events log reads it).
    /// Control thread, before `start`. `receive` takes every report from now on (the engine
    /// reports even with no page open).
    public func tap(_ receive: @escaping @Sendable ([Report]) -> Void) {
        taps.withLockedValue { $0.append(receive) }
        reports.listen(true)
    }

    private var isTapped: Bool { taps.withLockedValue { !$0.isEmpty } }

    public func pageClosed() {
        if pagesOpen.wrappingDecrementThenLoad(ordering: .acquiringAndReleasing) == 0 { reports.listen(keepsFiredForLog || isTapped) }
        pagesChanged.withLockedValue { $0 }?()
    }

    /// Control thread. The mood DJ's track.
    public func setTrack(_ name: String?) { track.withLockedValue { $0 = name } }

    /// Control thread. Where the page's `pose` field is read from: the camera's skeleton as JSON.
    public func showPose(_ read: @escaping @Sendable () -> String?) { bodyPose.withLockedValue { $0 = read } }

    /// Control thread. Fired voices since the last call, for the events log.
    public func takeFired() -> [FiredVoice] {
        // Once the view's thread has stopped, this thread is the fired ring's only reader: what the
        // engine fired since (it runs until the client is deactivated) goes to the log too.
        if !running.load(ordering: .acquiring), let firedForLog {
            while let report = fired.pop() { firedForLog.withLockedValue { $0.append(report) } }
        }
        return firedForLog?.withLockedValue { pending in defer { pending.removeAll(keepingCapacity: true) }; return pending } ?? []
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        publishFrame(reading: nil, picture: nil)
        let thread = Thread { [self] in
            ThreadName.set("pj-view")
            run()
            finished.signal()
        }
        thread.start()
    }

    /// Control thread. Stops the thread, waits for it, and moves what is left of the reports
    /// (for the events log).
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        doorbell.ring()
        finished.wait()
        drainReports()
    }

    /// The view's thread: what woke it, then asleep until the next ring (or, while a copy is
    /// awaited, at most until it is given up on).
    private func run() {
        var waiting: (reading: MeterBallistics.Reading, since: Double)?
        while running.load(ordering: .acquiring) {
            drainReports()
            if waiting == nil, let reading = pendingMeter.withLockedValue({ pending in defer { pending = nil }; return pending }) {
                view.request()
                waiting = (reading, MonotonicClock.seconds)
            }
            if let (reading, since) = waiting {
                if let picture = view.take() {
                    publishFrame(reading: reading, picture: picture)
                    waiting = nil
                } else if MonotonicClock.seconds - since > 0.05 {
                    // The process thread is not running (server gone): the request is withdrawn
                    // and the meters still go out.
                    let picture = view.cancel()
                    if picture == nil { framesWithoutCopy.wrappingIncrement(ordering: .relaxed) }
                    publishFrame(reading: reading, picture: picture)
                    waiting = nil
                }
            }
            // A reading that came while a copy was awaited is taken at once; a ring that comes
            // while this thread works stays counted in the eventfd, so none is lost.
            if waiting == nil && pendingMeter.withLockedValue({ $0 != nil }) { continue }
            doorbell.wait(seconds: waiting.map { max(0, 0.05 - (MonotonicClock.seconds - $0.since)) })
        }
    }

    /// Now, in wall-clock milliseconds, and the engine frame now.
    private func now() -> (ms: Double, frame: Int64) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let frame = handle.publishedPeriodStart.load(ordering: .relaxed) + Int64(client.framesSinceCycleStart)
        return (Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000, frame)
    }

    private func drainReports() {
        let playbackLatency = pace.withLockedValue { $0.playbackLatency }
        var events: [String] = []
        var clock: (ms: Double, frame: Int64)?
        func times(_ frame: Int64) -> (at: String, heard: String) {
            if clock == nil { clock = now() }
            let at = clock!.ms + Double(frame - clock!.frame) * 1000 / Double(handle.sampleRate)
            return (JSONText.number(at), JSONText.number(at + Double(playbackLatency) * 1000 / Double(handle.sampleRate)))
        }
        // No page open: the fired voices for the events log and the taps only, no JSON for nobody.
        let forPages = pageCount > 0
        let tapped = taps.withLockedValue { $0 }
        var tapReports: [Report] = []
        defer { if !tapReports.isEmpty { for tap in tapped { tap(tapReports) } } }
        while let report = fired.pop() {
            firedForLog?.withLockedValue { $0.append(report) }
            if !tapped.isEmpty { tapReports.append(Report(kind: .fired, index: Int(report.voice), frame: report.frame)) }
            guard forPages else { continue }
            let (at, heard) = times(report.frame)
            events.append(JSONText.object([("type", "\"fired\""), ("voice", String(report.voice)), ("frame", String(report.frame)),
                                           ("at", at), ("heard", heard), ("velocity", JSONText.number(report.velocity))]))
        }
        while let observation = observations.pop() {
            if !tapped.isEmpty {
                switch observation.kind {
                case .beat: tapReports.append(Report(kind: .beat, index: Int(observation.index), frame: observation.frame))
                case .regionHit: tapReports.append(Report(kind: .region, index: Int(observation.index), frame: observation.frame))
                case .mode: break
                }
            }
            guard forPages else { continue }
            let (at, heard) = times(observation.frame)
            switch observation.kind {
            case .beat:
                events.append(JSONText.object([("type", "\"beat\""), ("performer", String(observation.index)),
                                               ("frame", String(observation.frame)), ("at", at),
                                               ("heard", heard), ("strength", JSONText.number(observation.value))]))
            case .regionHit:
                events.append(JSONText.object([("type", "\"region\""), ("region", String(observation.index)),
                                               ("frame", String(observation.frame)), ("at", at), ("heard", heard),
                                               ("velocity", JSONText.number(observation.value))]))
            case .mode:
                break  // in the next frame's state
            }
        }
        guard !events.isEmpty, let send = sink.withLockedValue({ $0 }) else { return }
        for event in events { send(.event(event)) }
    }

    private func publishFrame(reading: MeterBallistics.Reading?, picture: EngineView.Picture?) {
        let changed = merged(state(picture: picture, status: paceStatus()))
        guard let reading else { return }
        let clock = now()
        let meter = JSONText.object([
            ("type", "\"meter\""), ("seq", String(framesSent.wrappingIncrementThenLoad(ordering: .relaxed))),
            ("t", JSONText.number(clock.ms)), ("frame", String(clock.frame)),
            ("peak", JSONText.array([reading.peakLeft, reading.peakRight].map { JSONText.number($0) })),
            ("rms", JSONText.array([reading.rmsLeft, reading.rmsRight].map { JSONText.number($0) })),
            // Each modulation's source and destination values now, and whether it is on.
            ("modulations", JSONText.array((0..<modulationCount).map { index in
                let now = handle.modulationReadings.reading(index)
                return JSONText.array([now.source.isNaN ? "null" : JSONText.number(now.source),
                                       now.destination.isNaN ? "null" : JSONText.number(now.destination), JSONText.bool(now.enabled)])
            })),
        ])
        let delta = changed.isEmpty ? nil : JSONText.object([("type", "\"delta\""), ("state", JSONText.object(changed))])
        sink.withLockedValue { $0 }?(.frame(meter: meter, delta: delta))
    }

    /// The status as JSON, made again every `statusEvery` frames (and the playback latency read
    /// then); the last one made otherwise.
    private func paceStatus() -> String {
        let statusDue = pace.withLockedValue { pace in
            defer { pace.frameNumber += 1 }
            return pace.frameNumber % Self.statusEvery == 0
        }
        if statusDue {
            let playbackLatency = client.playbackLatency
            let values = status() + (extraStatus.withLockedValue { $0 }?() ?? [])
            let text = JSONText.object(values.map { name, value in
                switch value {
                case .int(let number): (name, String(number))
                case .float(let number): (name, JSONText.number(number))
                case .text(let text): (name, JSONText.string(text))
                }
            })
            pace.withLockedValue { $0.playbackLatency = playbackLatency; $0.status = text }
        }
        return pace.withLockedValue { $0.status }
    }

    /// The page's state fields now, as JSON (`PageStateField.all`).
    private func state(picture: EngineView.Picture?, status: String) -> [(String, String)] {
        PageStateField.entries(PageFrame(handle: handle, picture: picture, heartCount: handle.performerCount + (handle.ensemble == nil ? 0 : 1),
                                         hearts: hearts, moods: moods, regionNames: regionNames,
                                         track: track.withLockedValue { $0 }, pose: bodyPose.withLockedValue { $0 }?(), status: status))
    }

    /// `state` merged into the fields the page has: those that changed, in order. Fields the
    /// copy did not bring keep their last values.
    private func merged(_ state: [(String, String)]) -> [(String, String)] {
        fields.withLockedValue { last in
            var merged = last
            var changed: [(String, String)] = []
            for (key, value) in state {
                if let index = merged.firstIndex(where: { $0.0 == key }) {
                    guard merged[index].1 != value else { continue }
                    merged[index].1 = value
                } else {
                    merged.append((key, value))
                }
                changed.append((key, value))
            }
            last = merged
            return changed
        }
    }
}
