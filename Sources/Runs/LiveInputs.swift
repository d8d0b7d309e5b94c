import Engine
import Inputs
import JackBackend
import OSC
import Pose
import Presets
import Realtime
import Sensors
import LSL
import WebSurface

/// A live run's sources of control and what watches them: every input source in the order the
/// engine drains their rings (a replayed session, the run's own ring, the sensors, OSC, the
/// page), the heart and mood watches they share, the live picture and the meters' publisher.
/// Made before the engine, whose setup takes each source's ring. Control thread.
struct LiveInputs {
    var sources: [any InputSource] = []
    let control = ControlInput()
    let hearts: HeartWatch
    let moods: MoodWatch
    var replay: ReplaySource?
    var replayRejections: (first: [HeartSession.Rejection], total: Int) = ([], 0)
    var sensors: SensorInput?
    /// LSL streams read as bodies, markers and signals; and the outlets (`--lsl`).
    var lsl: LSLInput?
    var lslOut: LSLOutput?
    /// LSL's clock beside the engine's frames, when the run uses LSL.
    var labClock: LabClock?
    var osc: OSCInput?
    /// The camera's pose (`--pose`, `sensors.pose`).
    var pose: PoseInput?
    /// Ableton Link's peer (`--link`, `--follow-link`).
    var link: LinkPeer?
    var view: LiveView?
    /// The meters, 60 times a second to OSC's subscribers and the page while either watches.
    let publisher: MeterPublisher
    private let meterOut = LockedBox<OSCMeterOutput?>(nil), meterView = LockedBox<LiveView?>(nil)
    /// What `/pulse/status` and the page report, once every source is made (`LiveSession` sets it).
    let status = LockedBox<LiveStatus?>(nil)

    /// The watches, the replay and the sensors; OSC and the page come with `addControlInputs`, once the status can be made.
    init(_ configuration: LiveSession.Configuration, loaded: LoadedPreset, handle: EngineHandle, clock: JackFrameClock, meter: OutputMeter,
         log: @escaping @Sendable (String) -> Void, say: @escaping @Sendable (String) -> Void) throws {
        let (meterOut, meterView) = (meterOut, meterView)
        publisher = MeterPublisher(meter: meter, sampleRate: { handle.sampleRate },
                                   watchers: { (meterOut.withLockedValue { $0 }?.count ?? 0) + (meterView.withLockedValue { $0 }?.pageCount ?? 0) }) {
            reading in
            meterOut.withLockedValue { $0 }?.publish("/meter", reading.values)
            meterView.withLockedValue { $0 }?.meter(reading)
        }
        let dropout = loaded.dropoutRule
        hearts = HeartWatch(performers: max(1, loaded.performerNames.count), seconds: dropout.seconds, fades: dropout.fades, bell: handle.controlBell)
        moods = MoodWatch(model: loaded.preset.moodModel, performers: loaded.performerNames, log: log)
        if !configuration.replay.isEmpty {
            let source = try PerformerSessions.load(configuration.replay.map(PerformerSessions.Spec.init), preset: loaded,
                                                    sampleRate: clock.sampleRate, presetTempo: false)
            // A take's lost cycles are its own: a live replay plays on this server's time.
            let messages = source.messages.filter { if case .framesSkipped = $0.event { false } else { true } }
            replay = ReplaySource(messages: messages, clock: clock, hearts: hearts)
            replayRejections = (source.rejections, source.rejectedCount)
        }
        let bodies = try BodySources(loaded, heart: configuration.heart, eeg: configuration.eeg)
        let requests = bodies.sensors
        if !requests.isEmpty {
            var sensing = SensorInput.Configuration()
            (sensing.sensors, sensing.adapter, sensing.predictBeats, sensing.ecgDelay) =
                (requests, configuration.bleAdapter, configuration.predictBeats, configuration.ecgDelay)
            sensors = SensorInput(configuration: sensing, clock: clock, hearts: hearts, moods: moods, log: log, say: say)
        }
        let streams = bodies.streams + configuration.lslMarkers.map { LSLStreamQuery(role: .markers, name: $0) }
        let signals = ModulationTable.signalNames(loaded.preset)
        if configuration.lsl || !streams.isEmpty || signals.contains(where: { $0.hasPrefix("lsl.") }) {
            do { try LSLLibrary.load() } catch { throw LSLError("LSL: \(error)") }
            labClock = LabClock(frames: clock)
        }
        if let labClock, !streams.isEmpty || signals.contains(where: { $0.hasPrefix("lsl.") }) {
            var reading = LSLInput.Configuration()
            (reading.streams, reading.signals, reading.voices, reading.regions) = (streams, signals, handle.voiceNames, handle.regionNames)
            (reading.beatDelay, reading.markerDelay) = (configuration.ecgDelay, configuration.lslDelay)
            lsl = try LSLInput(configuration: reading, clock: labClock, hearts: hearts, moods: moods, log: log, say: say)
        }
        if let spec = loaded.poseSpec(option: configuration.pose) {
            pose = try Self.pose(spec, configuration, loaded: loaded, handle: handle, clock: labClock ?? LabClock(frames: clock), log: log)
        }
        sources = [replay as (any InputSource)?, control, sensors, lsl, pose].compactMap { $0 }
    }

    /// Before JACK is touched: the camera or the video opens, LiteRT loads and the models compile,
    /// or one line says which did not, naming the option or the preset's line.
    static func checkPose(_ configuration: LiveSession.Configuration, loaded: LoadedPreset) throws {
        guard let spec = loaded.poseSpec(option: configuration.pose) else { return }
        do {
            _ = try PoseTracker(models: try PoseModelFiles.find(), threads: configuration.poseThreads)
            _ = try VideoSource(try PoseSourceSpec.parse(spec.text))
        } catch {
            throw PoseError("\(spec.origin): \(error)")
        }
    }

    /// The camera's input: its source, the models, LiteRT, opened again (each is closed after the
    /// check); a problem is one line naming the option or the preset's line.
    private static func pose(_ spec: (text: String, origin: String), _ configuration: LiveSession.Configuration, loaded: LoadedPreset,
                             handle: EngineHandle, clock: LabClock, log: @escaping @Sendable (String) -> Void) throws -> PoseInput {
        do {
            var settings = PoseInput.Configuration(models: try PoseModelFiles.find())
            settings.source = try PoseSourceSpec.parse(spec.text)
            (settings.delay, settings.threads) = (configuration.poseDelay, configuration.poseThreads)
            (settings.regionNames, settings.regionModel) = (handle.regionNames, loaded.preset.regionModel)
            return try PoseInput(configuration: settings, clock: clock, log: log)
        } catch {
            throw PoseError("\(spec.origin): \(error)")
        }
    }

    /// Whether a sensor gives the first performer's beats (an ECG's, or predicted ones): then a
    /// clock started from the preset's tempo beside them would sound every beat twice.
    func sensorGivesBeats(predicting: Bool) -> Bool {
        sensors?.configuration.sensors.contains { $0.performer == 0 && (predicting || SensorKinds.descriptor($0.kind).givesBeats) } ?? false
            || lsl?.configuration.streams.contains { $0.role == .heart && $0.performer == 0 } ?? false
    }

    /// OSC and the page (with the live picture), and the meters, which go to OSC's subscribers and the page.
    mutating func addControlInputs(_ configuration: LiveSession.Configuration, loaded: LoadedPreset, setup: inout EngineSetup,
                                   client: JackClient, fired: SPSCRing<FiredVoice>?,
                                   requests: @escaping @Sendable (OSCRequest) -> Void, log: @escaping @Sendable (String) -> Void) throws {
        let (handle, status, publisher) = (setup.handle, status, publisher)
        let routes = OSCRoutes(voices: handle.voiceNames, regions: handle.regionNames, inserts: handle.insertRoutes(),
                               performers: loaded.performerNames, signals: setup.signalNames, modulations: setup.modulations.count)
        if var settings = configuration.osc {
            (settings.mood, settings.regions) = (loaded.preset.moodModel, loaded.preset.regionModel)
            let input = try OSCInput(configuration: settings, routes: routes, clock: JackFrameClock(handle: handle, client: client),
                                     status: { status.withLockedValue { $0 }?.values(meters: publisher.reading) ?? [] }, requests: requests, hearts: hearts, moods: moods, log: log)
            meterOut.withLockedValue { $0 = input.meters }
            input.meters.onChange { publisher.watchersChanged() }
            osc = input
        }
        if configuration.keepsView, let fired {
            let view = LiveView(loaded: loaded, setup: &setup, client: client, moods: moods, hearts: hearts, routes: routes, fired: fired,
                                keepFiredForLog: configuration.eventsOut != nil, secondsPerRevolution: configuration.secondsPerRevolution) {
                [osc] in (osc?.counters.status ?? []).map { ("osc_" + $0, StatusValue.int($1)) } + (status.withLockedValue { $0 }?.values(meters: publisher.reading) ?? [])
            }
            meterView.withLockedValue { $0 = view }
            if let pose { view.showPose { pose.skeletonJSON } }
            view.onPagesChanged { publisher.watchersChanged() }
            self.view = view
            if configuration.lsl, let labClock {
                let names = LSLOutput.Names(client: client.name, voices: handle.voiceNames, regions: handle.regionNames,
                                            performers: loaded.performerNames, modulationSources: (loaded.preset.modulations ?? []).map(\.from))
                let output = try LSLOutput(names: names, clock: labClock, handle: handle, moods: moods, latency: { client.playbackLatency })
                view.tap { reports in
                    output.report(reports.map { report in
                        switch report.kind {
                        case .fired: .voice(report.index, frame: report.frame)
                        case .beat: .beat(performer: report.index, frame: report.frame)
                        case .region: .region(report.index, frame: report.frame)
                        }
                    })
                }
                lslOut = output
            }
        }
        sources += [osc as (any InputSource)?, view?.page].compactMap { $0 }
    }
}
