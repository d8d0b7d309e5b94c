import ArgumentParser
import Control
import Dispatch
import Foundation
import JackEngine

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play live as a JACK client until SIGINT or SIGTERM.",
        discussion: "Joins the running JACK server (the one JACK_DEFAULT_SERVER names). Ports: out_L, out_R, midi_in.")

    @Option(help: "The preset: a preset.yaml file or a folder holding one.")
    var preset: String = ShippedPresets.defaultPreset

    @Option(help: "A fixed tempo until a sensor says otherwise (above 0, at most 300).")
    var bpm: Double?

    @Option(help: "The JACK client name.")
    var name: String = "pulsejack"

    @Flag(help: "Connect out_L/out_R to the system playback ports.")
    var connect = false

    @Flag(name: .customLong("start-server"), help: "Start a JACK server when none runs (a sound card's driver, else the dummy driver).")
    var startServer = false

    @Option(name: .customLong("osc-port"), help: "UDP port for OSC input (0: any free port, printed at start).")
    var oscPort: UInt16 = 9000

    @Option(name: .customLong("osc-bind"), help: "Address the OSC port listens on; 0.0.0.0 opens it to the network.")
    var oscBind = "127.0.0.1"

    @Flag(name: .customLong("no-osc"), help: "Do not listen for OSC.")
    var noOSC = false

    @Option(name: .customLong("record-session"), help: "Write every control message the engine applies, with its frame, to this session log (re-render it with render --session).")
    var recordSession: String?

    @Option(name: .customLong("events-out"), help: "Write every fired voice as one JSON object per line.")
    var eventsOut: String?

    @Option(help: "Replay a session (HealthKit JSON, CSV, or a session log) live, from now.")
    var replay: String?

    @Flag(name: .customLong("predict-beats"), help: "Schedule each detected beat's successor from recent intervals (PPG and /pulse/beat), so sound lands on the beat.")
    var predictBeats = false

    func validate() throws {
        if let bpm, !HeartbeatClock.accepts(bpm: bpm) {
            throw ValidationError("--bpm \(bpm) is not a heart rate (above 0, at most 300)")
        }
    }

    func run() throws {
        setvbuf(stdout, nil, _IOLBF, 0)  // status lines reach a pipe as they happen
        let loaded: LoadedPreset
        do { loaded = try LoadedPreset.load(path: preset) } catch let error as InputError { throw fail(error) }

        JackClient.silenceLibraryMessages()
        var server: JackServer?
        if startServer && !JackServer.isRunning() {
            do {
                server = try JackServer.start()
                print("pulsejack: started JACK server '\(server!.name)' with the \(server!.driver) driver")
            } catch { throw fail(error) }
        }

        let client: JackClient
        do { client = try JackClient(name: name) } catch {
            server?.stop()
            throw fail(error)
        }
        let engine: RealtimeEngine
        let fired = SPSCRing<FiredVoice>(minimumCapacity: 8192)
        let applied = SPSCRing<ControlMessage>(minimumCapacity: 16_384)
        var recording: FileHandle?
        var events: EventLog?
        var replaySource: ReplaySource?
        do {
            engine = try EngineGraph.build(preset: loaded, sampleRate: client.sampleRate, maxFrames: client.bufferSize,
                                           firedReports: eventsOut == nil ? nil : fired.producer)
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
                for rejection in source.rejections { warn(rejection) }
                replaySource = ReplaySource(messages: source.messages, clock: JackFrameClock(engine: engine, client: client))
                engine.addSource(replaySource!.ring)
            }
        } catch {
            server?.stop()
            throw fail(error)
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
        var osc: OSCInput?
        if !noOSC {
            var configuration = OSCInput.Configuration()
            configuration.port = oscPort
            configuration.bind = oscBind
            configuration.predictBeats = predictBeats
            (configuration.dropoutSeconds, configuration.dropoutFades) = loaded.dropoutRule
            configuration.mood = loaded.preset.moodModel
            configuration.regions = loaded.preset.regionModel
            let counters = engine.counters
            do {
                osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: engine.voiceNames, regions: engine.regionNames),
                                   clock: JackFrameClock(engine: engine, client: client),
                                   status: {
                                       let snapshot = counters.snapshot()
                                       return [("xruns", snapshot.xruns), ("beats", snapshot.beats),
                                               ("voices_fired", snapshot.voicesFired), ("late_messages", snapshot.lateMessages),
                                               ("rejected_tempos", snapshot.rejectedTempos)]
                                   },
                                   log: { warn($0) })
            } catch {
                server?.stop()
                throw fail(error)
            }
            engine.addSource(osc!.ring)
        }
        // Track voices with a library: the next track follows the mood.
        var djs: [MoodTrackDJ] = []
        for voice in loaded.voices {
            guard let library = voice.libraryPath, let scanned = try? TrackLibrary.scan(folder: library),
                  let dj = MoodTrackDJ(engine: engine, voice: voice.definition.name, library: scanned,
                                       seed: UInt64.random(in: 1...UInt64.max)) else { continue }
            djs.append(dj)
        }
        let swapper = ClipSwapper(engine: engine, preset: loaded, offline: false)
        do { try client.activate(engine: engine) } catch { server?.stop(); throw fail(error) }
        osc?.start()
        replaySource?.start()
        if connect {
            let made = client.connectToPlayback()
            if made.isEmpty { warn("--connect: the server has no physical playback ports") }
        }
        print("pulsejack: playing '\(loaded.preset.name ?? loaded.file)' on JACK server '\(JackClient.serverName)' as '\(client.name)' at \(client.sampleRate) Hz, \(client.bufferSize) frames a period; ports \(client.outputPortNames.joined(separator: ", ")), \(client.name):midi_in" + (osc.map { "; OSC on \(oscBind):\($0.boundPort)" } ?? ""))

        let stop = DispatchSemaphore(value: 0)
        var signalSources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            signalSources.append(source)
        }
        var serverLost = false
        while stop.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            drainReports()
            for dj in djs {
                do {
                    if let message = try dj.tick(mood: osc?.mood) { controlRing.producer.push(message) }
                } catch {
                    warn("\(error)")
                }
            }
            swapper.releaseRetired()
            if client.serverGone.load(ordering: .acquiring) {
                serverLost = true
                break
            }
        }
        osc?.stop()
        replaySource?.stop()
        if !serverLost { client.deactivate() }
        drainReports()
        if let recording {
            recording.write(Data((SessionLog.endLine(frame: Int64(engine.counters.snapshot().framesProcessed)) + "\n").utf8))
            try? recording.close()
        }
        try? events?.close()
        client.close()
        let counts = engine.counters.snapshot()
        print("pulsejack: stopped after \(counts.framesProcessed) frames: \(counts.beats) beats, \(counts.voicesFired) voices fired, \(counts.xruns) xruns, \(counts.rejectedTempos) tempo updates rejected, \(counts.lateMessages) late messages" + (counts.recordingOverruns > 0 ? ", \(counts.recordingOverruns) messages lost to a full recording ring" : ""))
        server?.stop()
        if serverLost { throw fail("the JACK server shut down: \(client.shutdownMessage)") }
        _ = signalSources
    }
}
