import Atomics
import Control
import Foundation

/// A live run, from the preset to the summary: build (preset, JACK client, engine, OSC input,
/// recordings) → `activate()` → `tick()` every ~100 ms (reports written, the mood DJ, retired
/// clips released, the session manager's saves, a lost server reconnected) → `stop()`.
/// The command line only parses options and prints. Control thread.
public final class LiveSession {
    public struct Configuration {
        public var preset: String
        /// A fixed tempo until a sensor says otherwise (else the preset's).
        public var bpm: Double?
        public var clientName = "pulsejack"
        /// Start a JACK server when none runs.
        public var startServer = false
        /// With `startServer`: a NetJACK2 slave joined to the studio's master instead of a local one.
        public var netSlave: JackServer.NetSlave?
        /// Asked while waiting (for a NetJACK2 master): true gives up.
        public var shouldStop: @Sendable () -> Bool = { false }
        /// nil: no OSC input.
        public var osc: OSCInput.Configuration? = OSCInput.Configuration()
        /// Record the output to this WAV file.
        public var record: String?
        public var timebase = JackClient.Timebase.off
        public var followTransport = false
        /// Write every applied control message to this session log.
        public var recordSession: String?
        /// Write every fired voice as JSON lines.
        public var eventsOut: String?
        /// Replay these session files live, from now (`[PERFORMER=]FILE` each).
        public var replay: [String] = []
        /// Connect out_L/out_R to the system playback ports.
        public var connectToPlayback = false
        public var connections: [ConnectRequest] = []
        /// Under a session manager (it restores connections itself).
        public var sessionManager: SessionManagerJoin?
        /// Keep a live picture (`view`) for the web page.
        public var liveView = false
        /// Seconds per revolution of the live picture's radial trace.
        public var secondsPerRevolution = 10.0
        /// Ports per voice or group (`run --outputs`), and per voice MIDI (`run --midi-out`);
        /// nil: as the preset says.
        public var outputs: OutputLayout.Mode?
        public var midiOut: OutputLayout.MIDIMode?

        public init(preset: String) { self.preset = preset }
    }

    /// A session manager's open: the client, the session it opened, and our JACK name there.
    public struct SessionManagerJoin {
        public let client: NSMClient
        public let session: NSMClient.Session
        /// The session's saved preset, if there is one.
        public let savedPreset: String?
        public let clientName: String
    }

    public let loaded: LoadedPreset
    public let client: JackClient
    public let engine: RealtimeEngine
    /// The engine as this thread and the inputs hold it.
    public let handle: EngineHandle
    public let osc: OSCInput?
    /// The ports besides the master's: per voice or group, and per voice MIDI.
    public let outputs: OutputLayout
    /// The live picture, when `liveView` asked for one.
    public let view: LiveView?
    private let configuration: Configuration
    private let server: JackServer?
    private let log: @Sendable (String) -> Void
    private let say: @Sendable (String) -> Void
    private let fired = SPSCRing<FiredVoice>(minimumCapacity: 8192)
    private let applied = SPSCRing<ControlMessage>(minimumCapacity: 16_384)
    private let controlRing = SPSCRing<ControlMessage>(minimumCapacity: 256)
    private let recording: FileHandle?
    private let events: EventLog?
    private let replaySource: ReplaySource?
    private let recorder: OutputRecorder?
    private let meter = OutputMeter()
    private let publisher: MeterPublisher
    /// Each track voice's DJ, and whose mood it follows.
    private let djs: [(dj: MoodTrackDJ, performer: Int)]
    private let swapper: ClipSwapper
    private var reconnection = Reconnection()
    private var savedChanges = 0
    private var lastConnectionCheck = Date.distantPast
    /// What OSC asked of the control thread (plugin states to load), done in `tick`.
    private let requests = LockedBox<[OSCRequest]>([])
    /// The path latency last reported to JACK (and said).
    private var reportedLatency = 0
    private var stopped = false
    /// Our ports to a net slave's system ports, kept made (the master may join late, or again).
    private let netWiring: [ConnectRequest]
    private var netJoined = false
    private let cycleWatch = CycleWatch()
    /// Entries of the replayed session rejected on reading (the first ones), and how many in all.
    public private(set) var replayRejections: (first: [HeartSession.Rejection], total: Int) = ([], 0)

    /// Joins a session manager (NSM_URL): announces, waits for its open (or nil if `stop` says
    /// so first), makes the session folder, and picks the JACK name its client id allows.
    public static func joinSessionManager(url: String, stop: @escaping () -> Bool,
                                          log: @escaping @Sendable (String) -> Void,
                                          say: (String) -> Void) throws -> SessionManagerJoin? {
        let client = try NSMClient(url: url, log: log)
        guard let opened = try client.announce(application: "pulsejack", executable: "pulsejack", stop: stop) else { return nil }
        try FileManager.default.createDirectory(atPath: opened.path, withIntermediateDirectories: true)
        let saved = opened.path + "/preset.yaml"
        var clientName = opened.clientID
        if JackClient.problem(withName: clientName) != nil {
            // A client id JACK cannot take (the server's own name): keep it recognisable.
            let fixed = String(clientName.replacingOccurrences(of: ":", with: "_").prefix(50)) + ".pulsejack"
            say("pulsejack: the session manager's client id '\(clientName)' cannot be a JACK client name; using '\(fixed)'")
            clientName = fixed
        }
        say("pulsejack: session manager \(client.managerName ?? url) opened '\(opened.displayName)' at \(opened.path)")
        return SessionManagerJoin(client: client, session: opened,
                                  savedPreset: FileManager.default.fileExists(atPath: saved) ? saved : nil, clientName: clientName)
    }

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
            if configuration.startServer && !JackServer.isRunning() {
                server = try JackServer.start(net: configuration.netSlave)
                if let net = configuration.netSlave {
                    say("pulsejack: started NetJACK2 slave server '\(server!.name)' as '\(net.name)', latency \(net.latency) periods; "
                        + "waiting for the master " + (net.master ?? "(multicast 225.3.19.154:19000)"))
                    // The slave takes the master's rate and period when it joins: build for those.
                    guard try JackServer.waitForNetMaster(stop: configuration.shouldStop) else { throw JackServer.NetWaitStopped() }
                } else {
                    say("pulsejack: started JACK server '\(server!.name)' with the \(server!.driver) driver")
                }
            }
            let client = try JackClient(name: nsm?.clientName ?? configuration.clientName)
            self.client = client
            for folder in loaded.voices.compactMap(\.libraryPath) where libraries[folder] == nil {
                libraries[folder] = try TrackLibrary.scan(folder: folder)
            }
            var setup = try EngineGraph.setup(preset: loaded, sampleRate: client.sampleRate, maxFrames: client.bufferSize,
                                              libraries: libraries, pluginStateFolder: nsm.map { $0.session.path + "/plugins" })
            let handle = setup.handle
            self.handle = handle
            if configuration.eventsOut != nil || configuration.liveView { setup.firedReports = fired }
            outputs = try OutputLayout(preset: loaded, mode: configuration.outputs, midi: configuration.midiOut)
            setup.outputs = outputs
            setup.followsGrid = configuration.followTransport
            setup.sendsGrid = configuration.timebase != .off
            if let path = configuration.recordSession {
                guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                    throw InputError(file: path, "cannot write the session log")
                }
                let performers = loaded.performerNames
                handle.write(Data((SessionLog.headerLine(.init(pulsejack_session: 1, sample_rate: client.sampleRate, voices: setup.voiceNames,
                                                                 performers: performers.isEmpty ? nil : performers)) + "\n").utf8))
                recording = handle
                setup.appliedReports = applied
            } else {
                recording = nil
            }
            events = try configuration.eventsOut.map { try EventLog(path: $0, voiceNames: handle.voiceNames) }
            if !configuration.replay.isEmpty {
                let source = try PerformerSessions.load(configuration.replay.map(PerformerSessions.Spec.init), preset: loaded,
                                                        sampleRate: client.sampleRate, presetTempo: false)
                replayRejections = (source.rejections, source.rejectedCount)
                replaySource = ReplaySource(messages: source.messages, clock: JackFrameClock(handle: handle, client: client))
                setup.sources.append(replaySource!.ring)
            } else {
                replaySource = nil
            }
            recorder = try configuration.record.map {
                try OutputRecorder(path: $0, sampleRate: client.sampleRate, maxFrames: client.bufferSize)
            }
            setup.sources.append(controlRing)
            if let tempo = configuration.bpm ?? loaded.preset.bpm { controlRing.producer.push(ControlMessage(.tempo(bpm: tempo))) }
            // The meters go to the OSC input's subscribers; the status reports the latest reading.
            let meterOut = LockedBox<OSCMeterOutput?>(nil)
            let meterView = LockedBox<LiveView?>(nil)
            publisher = MeterPublisher(meter: meter, sampleRate: client.sampleRate) { reading in
                meterOut.withLockedValue { $0 }?.publish("/meter", reading.values)
                meterView.withLockedValue { $0 }?.meter(reading)
            }
            let routes = OSCRoutes(voices: handle.voiceNames, regions: handle.regionNames, inserts: handle.insertRoutes(),
                                   performers: loaded.performerNames)
            let status = LiveStatus(handle: handle, client: client, recorder: recorder, nsm: nsm?.client, performers: loaded.performerNames,
                                    cycles: cycleWatch, grid: configuration.followTransport ? .following : configuration.timebase != .off ? .leading : .none,
                                    outputs: outputs)
            if var oscConfiguration = configuration.osc {
                (oscConfiguration.dropoutSeconds, oscConfiguration.dropoutFades) = loaded.dropoutRule
                oscConfiguration.mood = loaded.preset.moodModel
                oscConfiguration.regions = loaded.preset.regionModel
                let publisher = publisher
                let input = try OSCInput(configuration: oscConfiguration, routes: routes,
                                         clock: JackFrameClock(handle: handle, client: client),
                                         status: { status.values(meters: publisher.reading) },
                                         requests: { [requests] request in requests.withLockedValue { $0.append(request) } }, log: log)
                setup.sources.append(input.ring)
                meterOut.withLockedValue { $0 = input.meters }
                osc = input
            } else {
                osc = nil
            }
            if configuration.liveView {
                let input = osc, publisher = publisher
                let made = LiveView(loaded: loaded, setup: &setup, client: client, osc: osc, routes: routes, fired: fired,
                                    keepFiredForLog: configuration.eventsOut != nil,
                                    secondsPerRevolution: configuration.secondsPerRevolution) {
                    (input?.counters.all ?? []).map { ("osc_" + $0, StatusValue.int($1)) } + status.values(meters: publisher.reading)
                }
                meterView.withLockedValue { $0 = made }
                view = made
            } else {
                view = nil
            }
            engine = RealtimeEngine(setup)
        } catch {
            server?.stop()
            nsm?.client.opened(error: "\(error)")
            throw error
        }
        self.server = server
        netWiring = server != nil && configuration.netSlave != nil
            ? JackServer.NetSlave.wiring(following: configuration.followTransport) : []
        // Track voices with a library: the next track follows the mood of the voice's performer
        // (the first performer's for the ensemble's voices).
        let handle = handle, loaded = loaded
        djs = loaded.voices.compactMap { voice -> (dj: MoodTrackDJ, performer: Int)? in
            guard let library = voice.libraryPath, let scanned = libraries[library] else { return nil }
            let performer = loaded.performerIndex(of: voice)
            guard let dj = MoodTrackDJ(handle: handle, voice: voice.definition.name, library: scanned, seed: UInt64.random(in: 1...UInt64.max)) else {
                return nil
            }
            return (dj, performer >= 0 && performer < max(1, loaded.performerNames.count) ? performer : 0)
        }
        swapper = ClipSwapper(handle: handle, preset: loaded, offline: false)
        savedChanges = handle.settingChanges.load(ordering: .relaxed)
    }

    /// Activates the client and starts the inputs; connects (unless a session manager does).
    public func activate() throws {
        var options = JackClient.Options()
        options.timebase = configuration.timebase
        options.followTransport = configuration.followTransport
        options.meter = meter
        options.recorder = recorder
        options.outputs = outputs
        recorder?.start()
        do { try client.activate(engine: engine, options: options) } catch {
            server?.stop()
            configuration.sessionManager?.client.opened(error: "\(error)")
            throw error
        }
        if let refusal = client.timebaseRefusal { log("--timebase: \(refusal)") }
        osc?.start()
        replaySource?.start()
        view?.start()
        publisher.start()
        if configuration.sessionManager == nil { makeConnections() }
        configuration.sessionManager?.client.opened()
    }

    /// Control thread, about every 100 ms: writes what the process thread reported, lets the
    /// mood DJ pick tracks, releases retired clips, answers the session manager, and notices a
    /// lost server and reconnects.
    public func tick() {
        drainReports()
        for line in handle.drainPluginLogs() { log("plugin \(line)") }
        for request in requests.withLockedValue({ pending in defer { pending.removeAll() }; return pending }) {
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
        let latency = handle.publishedLatency.load(ordering: .relaxed)
        if latency != reportedLatency {
            reportedLatency = latency
            client.recomputeLatencies()
            if latency > 0 {
                say("pulsejack: plugin latency \(latency) frames: heartbeat notes go that much early and land on the beat; "
                    + "the audio input, MIDI pads and triggers sound \(latency) frames late (reported to JACK)")
            }
        }
        for (dj, performer) in djs {
            do {
                if let message = try dj.tick(mood: osc?.mood(of: performer)) { controlRing.producer.push(message) }
            } catch {
                log("\(error)")
            }
        }
        if let view, let dj = djs.first?.dj { view.setTrack(dj.current) }
        swapper.releaseRetired()
        if let nsm = configuration.sessionManager {
            for request in nsm.client.poll() {
                switch request {
                case .save: save(nsm)
                case .open(let other):
                    // Without :switch: a manager restarts a client to change sessions; one that asks
                    // anyway is told why not (the ports, `outputs:` among them, are registered at start).
                    let line = "cannot open session '\(other.displayName)' while running: pulsejack registers its JACK ports "
                        + "(outputs:, midi_out:) when it starts, so another session or preset is a restart of the client"
                    log(line)
                    nsm.client.opened(error: line)
                default: break
                }
            }
            nsm.client.setDirty(handle.settingChanges.load(ordering: .relaxed) != savedChanges)
        }
        if client.serverGone.load(ordering: .acquiring) && !reconnection.isWaiting {
            log("the JACK server stopped (\(client.shutdownMessage.isEmpty ? "no reason given" : client.shutdownMessage)); keeping the voices and their state, and reconnecting when a server is back")
            reconnection.begin(connections: client.knownConnections)
            client.releaseDeadClient()
        }
        if reconnection.isWaiting && reconnection.due {
            do {
                try client.reconnect()
                say("pulsejack: reconnected to JACK server '\(JackClient.serverName)' as '\(client.name)' after \(reconnection.attempts) attempt(s)")
                reconnection.succeeded()
                cycleWatch.restart(periods: handle.counters.periods.load(ordering: .relaxed))
                if configuration.sessionManager == nil { makeConnections() }
            } catch {
                if let line = reconnection.failed(error) { log(line) }
            }
        }
        if !reconnection.isWaiting {
            switch cycleWatch.observe(periods: handle.counters.periods.load(ordering: .relaxed)) {
            case .stalled?:
                log(netWiring.isEmpty ? "JACK has run no cycle for \(CycleWatch.limit) s; keeping the voices and their state"
                    : "the NetJACK2 link to the master is down (no cycle for \(CycleWatch.limit) s); keeping the voices and their state, "
                        + "rejoining when it is back")
            case .resumed(let seconds)?:
                say("pulsejack: JACK runs cycles again after \(String(format: "%.1f", seconds)) s" + (netWiring.isEmpty ? "" : " (the NetJACK2 master is back)"))
            case nil: break
            }
        }
        if !reconnection.isWaiting, Date().timeIntervalSince(lastConnectionCheck) >= 1 {
            lastConnectionCheck = Date()
            wireNetSlave()
            if !reconnection.pending.isEmpty { reconnection.pending = client.restoreConnections(reconnection.pending) }
            client.connections()
        }
    }

    /// A net slave's system ports exist once a master has joined (anew after each rejoin):
    /// our ports are connected to them then.
    private func wireNetSlave() {
        guard !netWiring.isEmpty else { return }
        let present = client.portExists("system:playback_1")
        if present && !netJoined { say("pulsejack: joined the NetJACK2 master as '\(configuration.netSlave!.name)'") }
        netJoined = present
        guard present else { return }
        // Connecting is idempotent (JACK's EEXIST counts as done): after a rejoin, the lost ones come back.
        for request in netWiring {
            do { try client.connect(request.ours, request.theirs) } catch { log("NetJACK2 wiring \(request.ours)=\(request.theirs): \(error)") }
        }
    }

    /// Whether the JACK server is gone and a reconnection is being tried.
    public var isReconnecting: Bool { reconnection.isWaiting }

    /// The session manager's save: the preset as it plays now, into the session folder.
    private func save(_ nsm: SessionManagerJoin) {
        do {
            savedChanges = handle.settingChanges.load(ordering: .relaxed)
            let states = handle.voiceStates(live: !reconnection.isWaiting)
            // Plugin states inside the session folder (`state:makePath` files go there too).
            let plugins = try handle.savePluginStates(into: nsm.session.path + "/plugins")
            try loaded.save(to: nsm.session.path + "/preset.yaml", bpm: handle.publishedTempo, states: states, plugins: plugins)
            nsm.client.saved()
            say("pulsejack: saved the session to \(nsm.session.path)/preset.yaml")
        } catch {
            log("\(error)")
            nsm.client.saved(error: "\(error)")
        }
    }

    /// Writes what the process thread reported since the last call.
    private func drainReports() {
        if let recording {
            var lines = ""
            while let message = applied.consumer.pop() {
                if let line = SessionLog.line(for: message) { lines += line + "\n" }
            }
            if !lines.isEmpty { recording.write(Data(lines.utf8)) }
        }
        if let events {
            if let view {
                for report in view.takeFired() { events.write(report) }
            } else {
                while let report = fired.consumer.pop() { events.write(report) }
            }
        }
    }

    /// `connectToPlayback` and `connections`: each failure is one warning, never fatal.
    private func makeConnections() {
        if configuration.connectToPlayback && client.connectToPlayback().isEmpty { log("--connect: the server has no physical playback ports") }
        for request in configuration.connections {
            do { try client.connect(request.ours, request.theirs) } catch { log("--connect-port \(request.ours)=\(request.theirs): \(error)") }
        }
    }

    /// What a run did, for its last line.
    public struct Summary: CustomStringConvertible {
        public var counts: EngineCounters.Snapshot
        public var reconnects: Int
        /// "; recorded N frames to PATH" (and its losses), or empty.
        public var recorded: String

        public var description: String {
            "\(counts.framesProcessed + counts.framesSkipped) frames: \(counts.beats) beats, \(counts.voicesFired) voices fired, \(counts.xruns) xruns (\(counts.framesSkipped) frames skipped), \(counts.rejectedTempos) tempo updates rejected, \(counts.lateMessages) late messages, \(counts.clippedSamples) clipped samples" + (counts.recordingOverruns > 0 ? ", \(counts.recordingOverruns) messages lost to a full recording ring" : "") + (reconnects > 0 ? ", \(reconnects) reconnects" : "") + recorded
        }
    }

    /// Stops the inputs, deactivates and closes the client, finishes every file, stops a
    /// server we started; the summary of the run. Once.
    public func stop() -> Summary {
        precondition(!stopped, "a live session stops once")
        stopped = true
        osc?.stop()
        replaySource?.stop()
        publisher.stop()
        view?.stop()
        if !reconnection.isWaiting { client.deactivate() }
        drainReports()
        if let recording {
            recording.write(Data((SessionLog.endLine(frame: engine.framePosition) + "\n").utf8))
            try? recording.close()
        }
        try? events?.close()
        var recorded = ""
        if let recorder {
            do {
                let frames = try recorder.finish()
                recorded = "; recorded \(frames) frames to \(recorder.path)" + (recorder.overruns.load(ordering: .relaxed) > 0
                    ? " (\(recorder.framesLost.load(ordering: .relaxed)) frames lost in \(recorder.overruns.load(ordering: .relaxed)) overruns)" : "")
            } catch {
                log("\(error)")
            }
        }
        if reconnection.isWaiting { client.releaseDeadClient() } else { client.close() }
        let summary = Summary(counts: handle.counters.snapshot(), reconnects: client.reconnects, recorded: recorded)
        server?.stop()
        return summary
    }
}
