import Renders
import OSC
import Atomics
import Foundation
import Inputs
import Realtime
import WebSurface
import Engine
import JackBackend
import Presets
import SoundFiles
import Sensors

/// A live run, from the preset to the summary: build (preset, JACK client, engine, inputs,
/// logs) → `activate()` (the page too) → `waitForWork` and `tick()` in turn (logs written, the
/// mood DJ, retired clips released, plugin states loaded, the session manager answered, the
/// server watched) → `stop()`. Its concerns have parts of their own: `RunLogs`, `ServerWatch`,
/// `SessionManagerLink`. The command line only parses options and prints. Control thread.
public final class LiveSession {
    public let loaded: LoadedPreset
    public let client: JackClient
    /// The engine the process thread runs: one rebuilt at the server's rate after it changed.
    public var engine: RealtimeEngine { rates.engine }
    /// The engine as this thread and the inputs hold it.
    public let handle: EngineHandle
    public let osc: OSCInput?
    /// The Bluetooth LE sensors (`--heart ble…`, the preset's `sensors:`), when the run reads any.
    public let sensors: SensorInput?
    /// The ports besides the master's: per voice or group, and per voice MIDI.
    public let outputs: OutputLayout
    /// The live picture, when `liveView` or `web` asked for one.
    public let view: LiveView?
    /// The live page, once `activate` has started it (`web`).
    public private(set) var page: WebServer?
    /// Entries of the replayed session rejected on reading (the first ones), and how many in all.
    public let replayRejections: (first: [HeartSession.Rejection], total: Int)
    let configuration: Configuration
    private let server: JackServer?
    private let log: @Sendable (String) -> Void
    private let say: @Sendable (String) -> Void
    private let controlRing = SPSCRing<ControlMessage>(minimumCapacity: 256)
    private let logs: RunLogs
    private let watch: ServerWatch
    /// Every heart source's data, and each performer's dropout.
    private let hearts: HeartWatch
    /// Every EEG source's band powers, and each performer's mood.
    private let moods: MoodWatch
    private let replaySource: ReplaySource?
    /// The recording's first take (`--record`); later takes, one per sample-rate change, in `rates.take`.
    private let recorder: OutputRecorder?
    private let rates: RateFollower
    private let meter = OutputMeter()
    private let publisher: MeterPublisher
    /// Each track voice's DJ, and whose mood it follows.
    private let djs: [(dj: MoodTrackDJ, performer: Int)]
    private let swapper: ClipSwapper
    /// What OSC asked of the control thread (plugin states to load), done in `tick`.
    private let requests = LockedBox<[OSCRequest]>([])
    /// The path latency last reported to JACK (and said).
    private var reportedLatency = 0
    /// Whether the control thread ticks every 100 ms for good: a mood DJ picks tracks, or a plugin
    /// runs in a child process it supervises.
    private let watchesClosely: Bool
    private var stopped = false
    /// Whether `stop` gave up waiting for `jack_client_close` (the process should exit without
    /// running libjack's own teardown, which would wait on the same server).
    public private(set) var closeAbandoned = false

    /// Builds everything the run needs, not yet active. Any failure is reported to the session
    /// manager, and a server we started is stopped.
    public init(configuration: Configuration, log: @escaping @Sendable (String) -> Void,
                say: @escaping @Sendable (String) -> Void) throws {
        self.configuration = configuration
        self.log = log
        self.say = say
        let nsm = configuration.sessionManager
        var server: JackServer?
        // Track libraries, scanned once: for the graph's first track and for the mood DJ.
        var libraries: [String: TrackLibrary] = [:]
        do {
            loaded = try LoadedPreset.load(path: nsm?.savedPreset ?? configuration.preset)
            JackClient.silenceLibraryMessages()
            server = try Self.startServer(configuration, say: say)
            let client = try JackClient(name: nsm?.clientName ?? configuration.clientName)
            self.client = client
            for folder in loaded.voices.compactMap(\.libraryPath) where libraries[folder] == nil {
                libraries[folder] = try TrackLibrary.scan(folder: folder)
            }
            var setup = try EngineGraph.setup(preset: loaded, sampleRate: client.sampleRate, maxFrames: client.bufferSize,
                                              libraries: libraries, pluginStateFolder: nsm?.pluginFolder,
                                              isolatePlugins: configuration.isolatePlugins)
            let handle = setup.handle
            self.handle = handle
            outputs = try OutputLayout(preset: loaded, mode: configuration.outputs, midi: configuration.midiOut)
            setup.outputs = outputs
            setup.followsGrid = configuration.followTransport
            setup.sendsGrid = configuration.timebase != .off
            logs = try RunLogs(recordSession: configuration.recordSession, eventsOut: configuration.eventsOut,
                               keepsFired: configuration.keepsView, sampleRate: client.sampleRate, voiceNames: setup.voiceNames,
                               performers: loaded.performerNames)
            setup.appliedReports = logs.applied
            setup.firedReports = logs.fired
            let dropout = loaded.dropoutRule
            let hearts = HeartWatch(performers: max(1, loaded.performerNames.count), seconds: dropout.seconds, fades: dropout.fades,
                                   bell: handle.controlBell)
            self.hearts = hearts
            let moods = MoodWatch(model: loaded.preset.moodModel, performers: loaded.performerNames, log: log)
            self.moods = moods
            let replay = try Self.replay(configuration.replay, preset: loaded, clock: JackFrameClock(handle: handle, client: client),
                                         hearts: hearts)
            (replaySource, replayRejections) = replay
            if let source = replay.0 { setup.sources.append(source.ring) }
            let makeTake = { [recordBufferSeconds = configuration.recordBufferSeconds, maxFrames = client.bufferSize] (path: String, rate: Int) in
                try OutputRecorder(path: path, sampleRate: rate, maxFrames: maxFrames, seconds: recordBufferSeconds,
                                   freewheeling: client.freewheelFlag)
            }
            recorder = try configuration.record.map { try makeTake($0, client.sampleRate) }
            let take = LockedBox(recorder)
            setup.sources.append(controlRing)
            sensors = try Self.sensors(configuration, loaded: loaded, clock: JackFrameClock(handle: handle, client: client),
                                       hearts: hearts, moods: moods, log: log, say: say)
            if let sensors { setup.sources.append(sensors.ring) }
            // A sensor's predicted beats, or an ECG's, are the first performer's heart: a clock
            // started from the preset's tempo beside them would sound every beat twice.
            let beatsFromSensor = sensors?.configuration.sensors.contains {
                $0.performer == 0 && (configuration.predictBeats || SensorKinds.descriptor($0.kind).givesBeats)
            } ?? false
            if let tempo = configuration.bpm ?? loaded.preset.bpm, !beatsFromSensor {
                controlRing.producer.push(ControlMessage(.tempo(bpm: tempo)))
            }
            watch = ServerWatch(client: client, configuration: configuration,
                                startedNetSlave: server != nil && configuration.netSlave != nil, log: log, say: say)
            (osc, view, publisher) = try Self.inputs(configuration, setup: &setup, loaded: loaded, client: client, take: take,
                                                      meter: meter, fired: logs.fired, requests: requests, watch: watch, hearts: hearts,
                                                      moods: moods, sensors: sensors, log: log)
            let wiring = setup.wiring
            rates = RateFollower(engine: RealtimeEngine(setup), take: take, client: client, logs: logs, build: {
                [loaded, libraries, maxFrames = setup.maxFrames, pluginFolder = nsm?.pluginFolder] rate in
                var rebuilt = try EngineGraph.setup(preset: loaded, sampleRate: rate, maxFrames: maxFrames, libraries: libraries,
                                                    pluginStateFolder: pluginFolder, isolatePlugins: configuration.isolatePlugins,
                                                    rebuilding: handle)
                rebuilt.wiring = wiring
                return rebuilt
            }, makeTake: makeTake, log: log, say: say)
        } catch {
            server?.stop()
            nsm?.client.opened(error: "\(error)")
            throw error
        }
        self.server = server
        djs = Self.moodDJs(loaded: loaded, handle: handle, libraries: libraries)
        watchesClosely = !djs.isEmpty || handle.supervisesPluginProcesses
        swapper = ClipSwapper(handle: handle, preset: loaded, offline: false)
    }

    /// A JACK server when none runs and the configuration asks for one (a NetJACK2 slave waits
    /// for its master here: it takes the master's rate and period, which the engine is built for).
    /// Never a jackd beside PipeWire: with PipeWire's libjack, PipeWire is the server; with
    /// jackd2's while a PipeWire runs for this user, the user is told to use `pw-jack`.
    private static func startServer(_ configuration: Configuration, say: (String) -> Void) throws -> JackServer? {
        guard configuration.startServer && !JackServer.isRunning() else { return nil }
        if JackServerIdentity.current.isPipeWire { throw JackClient.Failure.noServer(server: JackClient.serverName) }
        if configuration.netSlave == nil && JackServerIdentity.pipeWireRuns {
            throw OptionProblem("--start-server: PipeWire runs here, and a jackd beside it would fight it for the sound card; "
                                      + "run pulsejack on PipeWire's JACK instead: pw-jack pulsejack run …")
        }
        let server = try JackServer.start(net: configuration.netSlave)
        guard let net = configuration.netSlave else {
            say("pulsejack: started JACK server '\(server.name)' with the \(server.driver) driver")
            return server
        }
        say("pulsejack: started NetJACK2 slave server '\(server.name)' as '\(net.name)', latency \(net.latency) periods; "
            + "waiting for the master " + (net.master ?? "(multicast 225.3.19.154:19000)"))
        do {
            guard try JackServer.waitForNetMaster(stop: configuration.shouldStop) else { throw JackServer.NetWaitStopped() }
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// The sessions replayed live, from now, and what reading them rejected.
    private static func replay(_ specs: [String], preset: LoadedPreset, clock: JackFrameClock,
                               hearts: HeartWatch) throws -> (ReplaySource?, (first: [HeartSession.Rejection], total: Int)) {
        guard !specs.isEmpty else { return (nil, ([], 0)) }
        let source = try PerformerSessions.load(specs.map(PerformerSessions.Spec.init), preset: preset, sampleRate: clock.sampleRate,
                                                presetTempo: false)
        // A take's lost cycles are its own: a live replay plays on this server's time.
        let messages = source.messages.filter { if case .framesSkipped = $0.event { false } else { true } }
        return (ReplaySource(messages: messages, clock: clock, hearts: hearts), (source.rejections, source.rejectedCount))
    }

    /// The sensor input for the sensors the preset and the options name (nil: none).
    private static func sensors(_ configuration: Configuration, loaded: LoadedPreset, clock: JackFrameClock, hearts: HeartWatch,
                                moods: MoodWatch, log: @escaping @Sendable (String) -> Void, say: @escaping @Sendable (String) -> Void) throws -> SensorInput? {
        let requests = try loaded.sensorRequests(heart: configuration.heart, eeg: configuration.eeg)
        guard !requests.isEmpty else { return nil }
        var sensors = SensorInput.Configuration()
        sensors.sensors = requests
        sensors.adapter = configuration.bleAdapter
        sensors.predictBeats = configuration.predictBeats
        sensors.ecgDelay = configuration.ecgDelay
        return SensorInput(configuration: sensors, clock: clock, hearts: hearts, moods: moods, log: log, say: say)
    }

    /// The OSC input, the live picture and the meters, each with its ring in `setup`; the status
    /// the OSC port and the page report.
    private static func inputs(_ configuration: Configuration, setup: inout EngineSetup, loaded: LoadedPreset, client: JackClient,
                               take: LockedBox<OutputRecorder?>, meter: OutputMeter, fired: SPSCRing<FiredVoice>?,
                               requests: LockedBox<[OSCRequest]>, watch: ServerWatch, hearts: HeartWatch, moods: MoodWatch, sensors: SensorInput?,
                               log: @escaping @Sendable (String) -> Void) throws -> (OSCInput?, LiveView?, MeterPublisher) {
        let handle = setup.handle
        // The meters go to the OSC input's subscribers and the page; the status reports the latest reading.
        let meterOut = LockedBox<OSCMeterOutput?>(nil)
        let meterView = LockedBox<LiveView?>(nil)
        let publisher = MeterPublisher(meter: meter, sampleRate: { handle.sampleRate },
                                       watchers: { (meterOut.withLockedValue { $0 }?.count ?? 0) + (meterView.withLockedValue { $0 }?.pageCount ?? 0) }) {
            reading in
            meterOut.withLockedValue { $0 }?.publish("/meter", reading.values)
            meterView.withLockedValue { $0 }?.meter(reading)
        }
        let routes = OSCRoutes(voices: handle.voiceNames, regions: handle.regionNames, inserts: handle.insertRoutes(),
                               performers: loaded.performerNames)
        let status = LiveStatus(handle: handle, client: client, take: take, nsm: configuration.sessionManager?.client,
                                performers: loaded.performerNames, cycles: watch.cycles, grid: configuration.gridRole, outputs: setup.outputs,
                                hearts: hearts, moods: moods, sensors: sensors)
        var osc: OSCInput?
        if var oscConfiguration = configuration.osc {
            oscConfiguration.mood = loaded.preset.moodModel
            oscConfiguration.regions = loaded.preset.regionModel
            let input = try OSCInput(configuration: oscConfiguration, routes: routes, clock: JackFrameClock(handle: handle, client: client),
                                     status: { status.values(meters: publisher.reading) },
                                     requests: { request in
                                         requests.withLockedValue { $0.append(request) }
                                         handle.controlBell.ring()
                                     }, hearts: hearts, moods: moods,
                                     log: log)
            setup.sources.append(input.ring)
            meterOut.withLockedValue { $0 = input.meters }
            input.meters.onChange { publisher.watchersChanged() }
            osc = input
        }
        guard configuration.keepsView, let fired else { return (osc, nil, publisher) }
        let view = LiveView(loaded: loaded, setup: &setup, client: client, moods: moods, hearts: hearts, routes: routes, fired: fired,
                            keepFiredForLog: configuration.eventsOut != nil, secondsPerRevolution: configuration.secondsPerRevolution) {
            [osc] in (osc?.counters.status ?? []).map { ("osc_" + $0, StatusValue.int($1)) } + status.values(meters: publisher.reading)
        }
        meterView.withLockedValue { $0 = view }
        view.onPagesChanged { publisher.watchersChanged() }
        return (osc, view, publisher)
    }

    /// Track voices with a library: the next track follows the mood of the voice's performer
    /// (the first performer's for the ensemble's voices).
    private static func moodDJs(loaded: LoadedPreset, handle: EngineHandle,
                                libraries: [String: TrackLibrary]) -> [(dj: MoodTrackDJ, performer: Int)] {
        loaded.voices.compactMap { voice -> (dj: MoodTrackDJ, performer: Int)? in
            guard let library = voice.libraryPath, let scanned = libraries[library],
                  let dj = MoodTrackDJ(handle: handle, voice: voice.definition.name, library: scanned, seed: UInt64.random(in: 1...UInt64.max))
            else { return nil }
            let performer = loaded.performerIndex(of: voice)
            return (dj, performer >= 0 && performer < max(1, loaded.performerNames.count) ? performer : 0)
        }
    }

    /// Activates the client and starts the inputs and the page; connects (unless a session
    /// manager does). A page that cannot start stops the whole run (the client closes, a server
    /// we started stops): nothing half-started stays behind.
    public func activate() throws {
        var options = JackClient.Options()
        options.timebase = configuration.timebase
        options.followTransport = configuration.followTransport
        options.meter = meter
        options.recorder = recorder
        options.outputs = outputs
        options.cycleDeadline = watch.deadline
        recorder?.start()
        handle.pluginSharePercent.store(configuration.pluginShare, ordering: .relaxed)
        do { try client.activate(engine: engine, options: options) } catch {
            server?.stop()
            configuration.sessionManager?.client.opened(error: "\(error)")
            throw error
        }
        handle.ringsOnPluginLogs(true)
        watch.deadline.pushBack()
        if let refusal = client.timebaseRefusal { log("--timebase: \(refusal)") }
        if !client.metadataAvailable {
            log("metadata unavailable: the server took no JACK metadata, so patchbays show plain port names"
                + (client.server.isPipeWire ? " (PipeWire keeps it in the `default` metadata object a session manager such as wireplumber creates)" : ""))
        }
        osc?.start()
        sensors?.start()
        replaySource?.start()
        view?.start()
        publisher.start()
        watch.makeConnections()
        handle.ringsOnSettingChanges.store(configuration.sessionManager != nil, ordering: .relaxed)
        configuration.sessionManager?.opened(changes: handle.settingChanges.load(ordering: .relaxed))
        if let address = configuration.web, let view {
            do {
                let made = try WebServer(view: view, address: address, token: configuration.webToken)
                try made.start()
                page = made
            } catch {
                _ = stop()
                throw error
            }
        }
    }

    /// Control thread, after each `waitForWork`: writes what the process thread reported, loads the
    /// plugin states OSC asked for, lets the mood DJ pick tracks, releases retired clips,
    /// answers the session manager, and watches the server.
    public func tick() {
        rates.tick()
        watchHearts()
        logs.drain(view: view)
        for line in handle.drainPluginLogs() { log("plugin \(line)") }
        for line in handle.rescuePlugins() { log(line) }
        for request in requests.withLockedValue({ pending in defer { pending.removeAll() }; return pending }) { perform(request) }
        reportLatency()
        client.setRequestedLatencies()
        for (dj, performer) in djs {
            do {
                if let message = try dj.tick(mood: moods.mood(of: performer)) { controlRing.producer.push(message) }
            } catch {
                log("\(error)")
            }
        }
        if let view, let dj = djs.first?.dj { view.setTrack(dj.current) }
        swapper.releaseRetired()
        configuration.sessionManager?.poll(handle: handle, loaded: loaded, live: !watch.isReconnecting, log: log, say: say)
        watch.watch { handle.counters.value(.periods) }
    }

    /// Control thread, before each `tick`: sleeps until there is work — its bell rung (by the
    /// process thread at the end of a period that made some, by OSC's requests, JACK's rate,
    /// shutdown and connection callbacks, a plugin's log line, a lost heart's data back), `stop`
    /// rung, the cycles' deadline expired (no cycle for a while), the session manager's socket
    /// readable — or until its next timer (`ControlWait`). At rest it has none: no wake-up at all.
    public func waitForWork(orStop stop: Doorbell) {
        ControlWait.sleep(on: handle.controlBell,
                          besides: [stop.descriptor, watch.deadline.descriptor] + (configuration.sessionManager.map { [$0.client.descriptor] } ?? []),
                          closeWatch: watchesClosely || watch.isReconnecting, watchTicks: watch.needsTicks, dropoutDue: hearts.nextCheck())
    }

    /// Each performer's dropout, whatever the source of their heart: said once, faded when the
    /// preset says so, and their return.
    private func watchHearts() {
        let performers = loaded.performerNames
        func whose(_ performer: Int) -> String { performers.isEmpty ? "" : performers[performer] + "'s " }
        for change in hearts.check() {
            switch change {
            case .lost(let performer):
                if hearts.fades { controlRing.producer.push(ControlMessage(performer: UInt8(performer), .heartPresence(false))) }
                log("no \(whose(performer))heart data for \(hearts.seconds.plainText) s: "
                    + (hearts.fades ? "fading \(whose(performer))heart-driven voices out" : "holding the last tempo"))
            case .back(let performer):
                if hearts.fades { controlRing.producer.push(ControlMessage(performer: UInt8(performer), .heartPresence(true))) }
                log("\(whose(performer))heart data is back")
            }
        }
    }

    /// What OSC asked of the control thread: a plugin state built here and swapped in at its frame.
    private func perform(_ request: OSCRequest) {
        switch request {
        case .loadInsertState(let place, let insert, let folder):
            do {
                let message = try handle.insertStateMessage(place: place, insert: insert, state: folder)
                if !controlRing.producer.push(message) {
                    if case .swapInsert(_, let instances) = message.event { instances.release() }
                    log("\(place) insert \(insert): the control ring is full; state not loaded")
                } else {
                    say("pulsejack: loaded the plugin state \(folder) into \(place)'s insert \(insert)")
                }
            } catch {
                log("\(error)")
            }
        }
    }

    /// A changed path latency goes to JACK (its latency callback) and is said once.
    private func reportLatency() {
        let latency = handle.publishedLatency.load(ordering: .relaxed)
        guard latency != reportedLatency else { return }
        reportedLatency = latency
        client.recomputeLatencies()
        if latency > 0 {
            say("pulsejack: plugin latency \(latency) frames: heartbeat notes go that much early and land on the beat; "
                + "the audio input, MIDI pads and triggers sound \(latency) frames late (reported to JACK)")
        }
    }

    /// Control thread. `message` into the engine, through the session's own ring (false: full).
    public func send(_ message: ControlMessage) -> Bool {
        controlRing.producer.push(message)
    }

    /// Whether the JACK server is gone and a reconnection is being tried.
    public var isReconnecting: Bool { watch.isReconnecting }

    /// After a stop whose close was abandoned: exits (status 0) without libjack's teardown at
    /// exit, which would wait on the same unanswering server.
    public static func exitLeavingTheClient() -> Never {
        fflush(nil)  // every open output stream: stdout's last lines
        _exit(0)
    }

    /// Stops the page and the inputs, deactivates the client, finishes every file (the
    /// recording's header, the session log), closes the client, and stops a server we started;
    /// the summary of the run. Once. Each wait on the server has `closeSeconds`: a dying or
    /// stopped server can hold libjack for ever, and the client is abandoned then (the files
    /// finished all the same; `closeAbandoned` says so).
    public func stop(closeSeconds: Double = 2) -> Summary {
        precondition(!stopped, "a live session stops once")
        stopped = true
        page?.stop()
        osc?.stop()
        sensors?.stop()
        replaySource?.stop()
        publisher.stop()
        view?.stop()
        // A server that does not answer leaves the process thread where it is: the files are
        // finished then from what the engine published, and the client is left to it.
        let deactivated = watch.isReconnecting || client.deactivate(within: closeSeconds)
        rates.stop()
        let endFrame = deactivated ? engine.framePosition
            : handle.publishedPeriodStart.load(ordering: .relaxed) + Int64(client.bufferSize)
        logs.drain(view: view)
        logs.finish(endFrame: endFrame)
        handle.ringsOnPluginLogs(false)
        var takes = rates.finishedTakes
        if let recorder = rates.take.withLockedValue({ $0 }) {
            do { takes.append(try FinishedTake(recorder)) } catch { log("\(error)") }
        }
        let recorded = takes.map(\.summary).joined()
        if watch.isReconnecting {
            client.releaseDeadClient()
        } else if !deactivated || !client.close(within: closeSeconds) {
            closeAbandoned = true
            log("the JACK server did not let the client go within \(String(format: "%g", closeSeconds)) s (a stopped or dying server): "
                + "leaving it; the recording and the logs are already finished")
        }
        let summary = Summary(counts: handle.counters.snapshot(), reconnects: client.reconnects, recorded: recorded)
        server?.stop()
        return summary
    }
}
