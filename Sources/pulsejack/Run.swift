import ArgumentParser
import CJack
import Atomics
import Control
import Dispatch
import Foundation
import JackEngine

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play live as a JACK client until SIGINT, SIGTERM or SIGHUP.",
        discussion: """
            Joins the running JACK server (the one JACK_DEFAULT_SERVER names). Ports: out_L, out_R, midi_out, midi_in, in_L, in_R.
            When the server stops, pulsejack keeps its state and reconnects when one is back. Under a session manager \
            (NSM_URL set) it waits for the manager's open, takes its client id as the JACK name, saves there, and \
            leaves connections to the manager. SIGINT, SIGTERM and SIGHUP (a closed terminal) all stop it the same way: \
            the recording is finished and closed, and the summary printed.
            """)

    @Option(help: "The preset: a preset.yaml file or a folder holding one.")
    var preset: String = ShippedPresets.defaultPreset

    @Option(help: "A fixed tempo until a sensor says otherwise (above 0, at most 300).")
    var bpm: Double?

    @Option(help: "The JACK client name.")
    var name: String = "pulsejack"

    @Flag(help: "Connect out_L/out_R to the system playback ports.")
    var connect = false

    @Option(name: .customLong("connect-port"), help: "Connect one of our ports to another's, as OURS=THEIRS (e.g. midi_out=Hydrogen:midi_in); repeatable.")
    var connectPorts: [String] = []

    @Flag(name: .customLong("start-server"), help: "Start a JACK server when none runs (a sound card's driver, else the dummy driver).")
    var startServer = false

    @Option(name: .customLong("osc-port"), help: "UDP port for OSC input (0: any free port, printed at start).")
    var oscPort: UInt16 = 9000

    @Option(name: .customLong("osc-bind"), help: "Address the OSC port listens on; 0.0.0.0 (or ::) opens it to the network.")
    var oscBind = "127.0.0.1"

    @Option(name: .customLong("osc-allow"), help: "Who gets OSC replies (/pulse/status) and meters (/meter/subscribe), as a CIDR range (192.168.1.0/24) or one address; repeatable. Default: loopback only.")
    var oscAllow: [String] = []

    @Flag(name: .customLong("no-osc"), help: "Do not listen for OSC.")
    var noOSC = false

    @Option(help: "Record the output to this WAV file (32-bit float), every frame of the run.")
    var record: String?

    @Flag(help: "Be the JACK transport's timebase master: the heart's BPM and bar/beat/tick, unless another master exists.")
    var timebase = false

    @Flag(name: .customLong("timebase-force"), help: "Be the timebase master even if another client is.")
    var timebaseForce = false

    @Flag(name: .customLong("follow-transport"), help: "Take the tempo from the JACK transport's master instead of the heart.")
    var followTransport = false

    @Option(name: .customLong("record-session"), help: "Write every control message the engine applies, with its frame, to this session log (re-render it with render --session).")
    var recordSession: String?

    @Option(name: .customLong("events-out"), help: "Write every fired voice as one JSON object per line.")
    var eventsOut: String?

    @Option(help: "Replay a session (HealthKit JSON, CSV, or a session log) live, from now.")
    var replay: String?

    @Flag(name: .customLong("predict-beats"), help: "Schedule each detected beat's successor from recent intervals (PPG and /pulse/beat), so sound lands on the beat.")
    var predictBeats = false

    @Option(name: .customLong("beat-latency"), help: "With --predict-beats: seconds between a beat and its detection (sensor, radio, detector), 0…0.5.")
    var beatLatency: Double = 0.06

    func validate() throws {
        if let bpm, !HeartbeatClock.accepts(bpm: bpm) {
            throw ValidationError("--bpm \(bpm) is not a heart rate (above 0, at most 300)")
        }
        if followTransport && (timebase || timebaseForce) {
            throw ValidationError("--follow-transport and --timebase exclude each other: follow the transport, or lead it")
        }
        guard beatLatency.isFinite, (0...0.5).contains(beatLatency) else {
            throw ValidationError("--beat-latency \(beatLatency) is outside 0…0.5 s")
        }
        for range in oscAllow where AddressRange(range) == nil {
            throw ValidationError("--osc-allow \(range) is not an address or CIDR range (e.g. 192.168.1.0/24, ::1)")
        }
        for pair in connectPorts where ConnectRequest(pair) == nil {
            throw ValidationError("--connect-port \(pair) is not OURS=THEIRS (e.g. out_L=system:playback_1)")
        }
    }

    func run() throws {
        pj_line_buffer_stdout()
        let signals = StopSignals()
        if NSMClient.environmentURL == nil, let problem = JackClient.problem(withName: name) { throw fail("--name: \(problem)") }

        // Under a session manager: announce, and wait for its open before anything JACK.
        var nsm: NSMClient?
        var session: NSMClient.Session?
        var presetPath = preset
        var clientName = name
        if let url = NSMClient.environmentURL {
            do {
                let client = try NSMClient(url: url, log: { warn($0) })
                guard let opened = try client.announce(application: "pulsejack", executable: "pulsejack",
                                                       stop: { signals.stopping }) else { return }
                nsm = client
                session = opened
                try FileManager.default.createDirectory(atPath: opened.path, withIntermediateDirectories: true)
                let saved = opened.path + "/preset.yaml"
                if FileManager.default.fileExists(atPath: saved) { presetPath = saved }
                clientName = opened.clientID
                if JackClient.problem(withName: clientName) != nil {
                    // A client id JACK cannot take (the server's own name): keep it recognisable.
                    let fixed = String(clientName.replacingOccurrences(of: ":", with: "_").prefix(50)) + ".pulsejack"
                    print("pulsejack: the session manager's client id '\(clientName)' cannot be a JACK client name; using '\(fixed)'")
                    clientName = fixed
                }
                print("pulsejack: session manager \(client.managerName ?? url) opened '\(opened.displayName)' at \(opened.path)")
            } catch {
                throw fail(error)
            }
        }
        func failOpen(_ error: Any) -> ExitCode {
            nsm?.opened(error: "\(error)")
            return fail(error)
        }

        let loaded: LoadedPreset
        do { loaded = try LoadedPreset.load(path: presetPath) } catch let error as InputError { throw failOpen(error) }

        JackClient.silenceLibraryMessages()
        var server: JackServer?
        if startServer && !JackServer.isRunning() {
            do {
                server = try JackServer.start()
                print("pulsejack: started JACK server '\(server!.name)' with the \(server!.driver) driver")
            } catch { throw failOpen(error) }
        }

        let client: JackClient
        do { client = try JackClient(name: clientName) } catch {
            server?.stop()
            throw failOpen(error)
        }
        let engine: RealtimeEngine
        let fired = SPSCRing<FiredVoice>(minimumCapacity: 8192)
        let applied = SPSCRing<ControlMessage>(minimumCapacity: 16_384)
        var recording: FileHandle?
        var events: EventLog?
        var replaySource: ReplaySource?
        var recorder: OutputRecorder?
        // Track libraries, scanned once: for the graph's first track and for the mood DJ.
        var libraries: [String: TrackLibrary] = [:]
        do {
            for folder in loaded.voices.compactMap(\.libraryPath) where libraries[folder] == nil {
                libraries[folder] = try TrackLibrary.scan(folder: folder)
            }
            engine = try EngineGraph.build(preset: loaded, sampleRate: client.sampleRate, maxFrames: client.bufferSize,
                                           firedReports: eventsOut == nil ? nil : fired.producer, libraries: libraries)
            if let recordSession {
                guard FileManager.default.createFile(atPath: recordSession, contents: nil),
                      let handle = FileHandle(forWritingAtPath: recordSession) else {
                    throw InputError(file: recordSession, "cannot write the session log")
                }
                handle.write(Data((SessionLog.headerLine(.init(pulsejack_session: 1, sample_rate: client.sampleRate,
                                                                 voices: engine.voiceNames)) + "\n").utf8))
                recording = handle
                engine.recordApplied(into: applied)
            }
            if let eventsOut { events = try EventLog(path: eventsOut, voiceNames: engine.voiceNames) }
            if let replay {
                let source = try SessionSource.load(path: replay, sampleRate: client.sampleRate, regions: engine.regionNames,
                                                    regionModel: loaded.preset.regionModel)
                warn(rejections: source.rejections, total: source.rejectedCount)
                replaySource = ReplaySource(messages: source.messages, clock: JackFrameClock(engine: engine, client: client))
                engine.addSource(replaySource!.ring)
            }
            if let record { recorder = try OutputRecorder(path: record, sampleRate: client.sampleRate, maxFrames: client.bufferSize) }
        } catch {
            server?.stop()
            throw failOpen(error)
        }
        /// Control thread: writes what the process thread reported since the last call.
        func drainReports() {
            if let recording {
                var lines = ""
                while let message = applied.consumer.pop() {
                    if let line = SessionLog.line(for: message) { lines += line + "\n" }
                }
                if !lines.isEmpty { recording.write(Data(lines.utf8)) }
            }
            if let events { while let report = fired.consumer.pop() { events.write(report) } }
        }
        let controlRing = SPSCRing<ControlMessage>(minimumCapacity: 256)
        engine.addSource(controlRing)
        if let tempo = bpm ?? loaded.preset.bpm {
            controlRing.producer.push(ControlMessage(.tempo(bpm: tempo)))
        }
        let meter = OutputMeter()
        // The meters go to the OSC input's subscribers; the status reports the latest reading.
        let meterOut = LockedBox<OSCInput?>(nil)
        let publisher = MeterPublisher(meter: meter, sampleRate: client.sampleRate) { reading in
            meterOut.withLockedValue { $0 }?.publish("/meter", reading.values)
        }
        let status = LiveStatus(engine: engine, client: client, recorder: recorder, nsm: nsm)
        var osc: OSCInput?
        if !noOSC {
            var configuration = OSCInput.Configuration()
            configuration.port = oscPort
            configuration.bind = oscBind
            configuration.replyTo = AddressRange.loopback + oscAllow.compactMap(AddressRange.init)
            configuration.predictBeats = predictBeats
            configuration.detectionLatency = beatLatency
            (configuration.dropoutSeconds, configuration.dropoutFades) = loaded.dropoutRule
            configuration.mood = loaded.preset.moodModel
            configuration.regions = loaded.preset.regionModel
            do {
                osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: engine.voiceNames, regions: engine.regionNames),
                                   clock: JackFrameClock(engine: engine, client: client),
                                   status: { status.values(meters: publisher.reading) },
                                   log: { warn($0) })
            } catch {
                server?.stop()
                throw failOpen(error)
            }
            engine.addSource(osc!.ring)
        }
        meterOut.withLockedValue { $0 = osc }
        // Track voices with a library: the next track follows the mood.
        var djs: [MoodTrackDJ] = []
        for voice in loaded.voices {
            guard let library = voice.libraryPath, let scanned = libraries[library],
                  let dj = MoodTrackDJ(engine: engine, voice: voice.definition.name, library: scanned,
                                       seed: UInt64.random(in: 1...UInt64.max)) else { continue }
            djs.append(dj)
        }
        let swapper = ClipSwapper(engine: engine, preset: loaded, offline: false)
        var options = JackClient.Options()
        options.timebase = timebaseForce ? .takeOver : timebase ? .conditional : .off
        options.followTransport = followTransport
        options.meter = meter
        options.recorder = recorder
        recorder?.start()
        do { try client.activate(engine: engine, options: options) } catch {
            server?.stop()
            throw failOpen(error)
        }
        if let refusal = client.timebaseRefusal { warn("--timebase: \(refusal)") }
        osc?.start()
        replaySource?.start()
        publisher.start()
        // A session manager restores connections itself.
        if nsm == nil { makeConnections(client) }
        nsm?.opened()
        print("pulsejack: playing '\(loaded.preset.name ?? "preset")' from \(loaded.file) on JACK server '\(JackClient.serverName)' as '\(client.name)' at \(client.sampleRate) Hz, \(client.bufferSize) frames a period; ports \(client.outputPortNames.joined(separator: ", ")), \(client.name):midi_out, \(client.name):midi_in" + (osc.map { "; OSC on \(oscBind):\($0.boundPort)" } ?? "") + (record.map { "; recording to \($0)" } ?? ""))

        var reconnection = Reconnection()
        var savedChanges = engine.settingChanges.load(ordering: .relaxed)
        var lastConnectionCheck = Date.distantPast
        while !signals.wait(milliseconds: 100) {
            drainReports()
            for dj in djs {
                do {
                    if let message = try dj.tick(mood: osc?.mood) { controlRing.producer.push(message) }
                } catch {
                    warn("\(error)")
                }
            }
            swapper.releaseRetired()
            if let nsm, let session {
                for request in nsm.poll() where request == .save {
                    do {
                        savedChanges = engine.settingChanges.load(ordering: .relaxed)
                        try loaded.save(to: session.path + "/preset.yaml", bpm: engine.publishedTempo,
                                        states: engine.voiceStates(live: !reconnection.isWaiting))
                        nsm.saved()
                        print("pulsejack: saved the session to \(session.path)/preset.yaml")
                    } catch {
                        warn("\(error)")
                        nsm.saved(error: "\(error)")
                    }
                }
                nsm.setDirty(engine.settingChanges.load(ordering: .relaxed) != savedChanges)
            }
            if client.serverGone.load(ordering: .acquiring) && !reconnection.isWaiting {
                warn("the JACK server stopped (\(client.shutdownMessage.isEmpty ? "no reason given" : client.shutdownMessage)); keeping the voices and their state, and reconnecting when a server is back")
                reconnection.begin(connections: client.knownConnections)
                client.releaseDeadClient()
            }
            if reconnection.isWaiting && reconnection.due {
                do {
                    try client.reconnect()
                    print("pulsejack: reconnected to JACK server '\(JackClient.serverName)' as '\(client.name)' after \(reconnection.attempts) attempt(s)")
                    reconnection.succeeded()
                    if nsm == nil { makeConnections(client) }
                } catch {
                    reconnection.failed(error)
                }
            }
            if !reconnection.isWaiting, Date().timeIntervalSince(lastConnectionCheck) >= 1 {
                lastConnectionCheck = Date()
                if !reconnection.pending.isEmpty { reconnection.pending = client.restoreConnections(reconnection.pending) }
                client.connections()
            }
        }
        osc?.stop()
        replaySource?.stop()
        publisher.stop()
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
                warn("\(error)")
            }
        }
        if reconnection.isWaiting { client.releaseDeadClient() } else { client.close() }
        let counts = engine.counters.snapshot()
        print("pulsejack: stopped after \(counts.framesProcessed + counts.framesSkipped) frames: \(counts.beats) beats, \(counts.voicesFired) voices fired, \(counts.xruns) xruns (\(counts.framesSkipped) frames skipped), \(counts.rejectedTempos) tempo updates rejected, \(counts.lateMessages) late messages, \(counts.clippedSamples) clipped samples" + (counts.recordingOverruns > 0 ? ", \(counts.recordingOverruns) messages lost to a full recording ring" : "") + (client.reconnects > 0 ? ", \(client.reconnects) reconnects" : "") + recorded + "; stopped by \(signals.name)")
        server?.stop()
        reportHeldBackWarnings()
    }

    /// `--connect` and `--connect-port`: each failure is one warning, never fatal.
    private func makeConnections(_ client: JackClient) {
        if connect && client.connectToPlayback().isEmpty { warn("--connect: the server has no physical playback ports") }
        for pair in connectPorts {
            guard let request = ConnectRequest(pair) else { continue }
            do { try client.connect(request.ours, request.theirs) } catch { warn("--connect-port \(pair): \(error)") }
        }
    }
}

/// `--connect-port OURS=THEIRS`.
struct ConnectRequest {
    var ours: String
    var theirs: String

    init?(_ text: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else { return nil }
        ours = String(text[..<equals])
        theirs = String(text[text.index(after: equals)...])
    }
}

/// Retrying a server that went away: 0.5 s, doubling to at most 5 s between attempts.
struct Reconnection {
    private(set) var isWaiting = false
    private(set) var attempts = 0
    private var next = Date()
    private var lastError = ""
    /// Connections to remake once back (those whose other end is not there yet stay pending).
    var pending: [(String, String)] = []

    var due: Bool { Date() >= next }

    mutating func begin(connections: [(String, String)]) {
        isWaiting = true
        attempts = 0
        pending = connections
        next = Date() + 0.5
    }

    mutating func failed(_ error: Error) {
        attempts += 1
        let message = "\(error)"
        if message != lastError {
            warn("reconnecting: \(message); retrying")
            lastError = message
        }
        next = Date() + min(5, 0.5 * pow(2, Double(min(attempts, 4))))
    }

    mutating func succeeded() {
        attempts += 1
        isWaiting = false
        lastError = ""
    }
}
