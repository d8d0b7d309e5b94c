import Atomics
import Foundation
import Inputs
import Realtime
import WebSurface
import Engine
import JackBackend
import OSC
import Presets
import SoundFiles
import Sensors
import LSL

/// A live run, from the preset to the summary: build (preset, JACK client, engine, input
/// sources, logs) → `activate()` (the sources and the page started) → `waitForWork` and `tick()`
/// in turn (logs written, the mood DJ, retired clips released, plugin states loaded, the session
/// manager answered, the server watched) → `stop()`. Its concerns have parts of their own:
/// `LiveInputs` (every input source, the same shape each), `RunLogs`, `ServerWatch`,
/// `SessionManagerLink`, `RateFollower`. The command line only parses options and prints. Control thread.
public final class LiveSession {
    public let loaded: LoadedPreset
    public let client: JackClient
    /// The engine the process thread runs: one rebuilt at the server's rate after it changed.
    public var engine: RealtimeEngine { rates.engine }
    /// The engine as this thread and the inputs hold it.
    public let handle: EngineHandle
    /// Every source of control, in the order the engine drains their rings.
    public var sources: [any InputSource] { inputs.sources }
    public var osc: OSCInput? { inputs.osc }
    /// The Bluetooth LE sensors (`--heart ble…`, the preset's `sensors:`), when the run reads any.
    public var sensors: SensorInput? { inputs.sensors }
    /// The LSL streams read (`--heart lsl:…`, `--lsl-markers`, `lsl.` sources), and the outlets (`--lsl`).
    public var lsl: LSLInput? { inputs.lsl }
    public var lslOut: LSLOutput? { inputs.lslOut }
    /// The ports besides the master's: per voice or group, and per voice MIDI.
    public let outputs: OutputLayout
    /// The live picture, when `liveView` or `web` asked for one.
    public var view: LiveView? { inputs.view }
    /// The live page, once `activate` has started it (`web`).
    public private(set) var page: WebServer?
    /// Entries of the replayed session rejected on reading (the first ones), and how many in all.
    public var replayRejections: (first: [HeartSession.Rejection], total: Int) { inputs.replayRejections }
    let configuration: Configuration
    private let server: JackServer?
    let log: @Sendable (String) -> Void
    let say: @Sendable (String) -> Void
    let inputs: LiveInputs
    private let logs: RunLogs
    let watch: ServerWatch
    /// The recording's first take (`--record`); later takes, one per sample-rate change, in `rates.take`.
    private let recorder: OutputRecorder?
    let rates: RateFollower
    private let meter: OutputMeter
    /// Each track voice's DJ, and whose mood it follows.
    let djs: [(dj: MoodTrackDJ, performer: Int)]
    let swapper: ClipSwapper
    /// What OSC asked of the control thread (plugin states to load), done in `tick`.
    let requests: LockedBox<[OSCRequest]>
    /// The path latency last reported to JACK (and said).
    var reportedLatency = 0
    /// Each mood DJ's track last marked on the LSL outlet.
    var markedTracks: [Int: String] = [:]
    /// Whether the control thread ticks every 100 ms for good: a mood DJ picks tracks, or a plugin
    /// runs in a child process it supervises.
    private let watchesClosely: Bool
    private var stopped = false
    /// What the hosted CLAP plugins wait on from the control thread: their next timer, their descriptors.
    private var pluginMainThreads: (dueSeconds: Double?, descriptors: [Int32]) = (nil, [])
    /// Whether `stop` gave up waiting for `jack_client_close` (the process should exit without
    /// running libjack's own teardown, which would wait on the same server).
    public private(set) var closeAbandoned = false

    /// Builds everything the run needs, not yet active. Any failure is reported to the session
    /// manager, and a server we started is stopped.
    public init(configuration: Configuration, log: @escaping @Sendable (String) -> Void,
                say: @escaping @Sendable (String) -> Void) throws {
        (self.configuration, self.log, self.say) = (configuration, log, say)
        let (meter, requests) = (OutputMeter(), LockedBox<[OSCRequest]>([]))
        (self.meter, self.requests) = (meter, requests)
        let nsm = configuration.sessionManager
        var server: JackServer?
        do {
            let loaded = try LoadedPreset.load(path: nsm?.savedPreset ?? configuration.preset)
            try LiveInputs.checkPose(configuration, loaded: loaded)
            JackClient.silenceLibraryMessages()
            try Self.waitForServer(configuration, say: say)
            server = try Self.startServer(configuration, say: say)
            let client = try JackClient(name: nsm?.clientName ?? configuration.clientName)
            let libraries = try Self.libraries(of: loaded)
            var setup = try Self.setup(configuration, loaded: loaded, client: client, libraries: libraries)
            let logs = try RunLogs(recordSession: configuration.recordSession, eventsOut: configuration.eventsOut, keepsFired: configuration.keepsView,
                                   sampleRate: client.sampleRate, voiceNames: setup.voiceNames, performers: loaded.performerNames,
                                   signals: setup.signalNames)
            (setup.appliedReports, setup.firedReports) = (logs.applied, logs.fired)
            let firstTake = try configuration.record.map { try Self.take(configuration, client: client)($0, client.sampleRate) }
            let take = LockedBox(firstTake)
            let watch = ServerWatch(client: client, configuration: configuration,
                                    startedNetSlave: server != nil && configuration.netSlave != nil, log: log, say: say)
            inputs = try Self.inputs(configuration, loaded: loaded, setup: &setup, client: client, take: take, watch: watch,
                                     fired: logs.fired, meter: meter, requests: requests, log: log, say: say)
            rates = Self.rateFollower(configuration, loaded: loaded, setup: setup, libraries: libraries, client: client, take: take, logs: logs,
                                      log: log, say: say)
            djs = Self.moodDJs(loaded: loaded, handle: setup.handle, libraries: libraries)
            (self.loaded, self.client, handle, outputs, self.logs, recorder, self.watch) = (loaded, client, setup.handle, setup.outputs, logs, firstTake, watch)
        } catch {
            server?.stop()
            nsm?.client.opened(error: "\(error)")
            throw error
        }
        self.server = server
        watchesClosely = !djs.isEmpty || handle.supervisesPluginProcesses
        swapper = ClipSwapper(handle: handle, preset: loaded, offline: false)
    }

    /// Activates the client and starts the input sources and the page; connects (unless a session
    /// manager does). A page that cannot start stops the whole run (the client closes, a server
    /// we started stops): nothing half-started stays behind.
    public func activate() throws {
        var options = JackClient.Options()
        (options.timebase, options.followTransport, options.meter) = (configuration.timebase, configuration.followTransport, meter)
        (options.recorder, options.outputs, options.cycleDeadline) = (recorder, outputs, watch.deadline)
        (options.link, options.midiClock) = (inputs.link?.session, configuration.midiClock)
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
        inputs.lslOut?.start()
        for source in sources { source.start() }
        view?.start()
        inputs.publisher.start()
        watch.makeConnections()
        handle.ringsOnSettingChanges.store(configuration.sessionManager != nil, ordering: .relaxed)
        configuration.sessionManager?.opened(changes: handle.settingChanges.load(ordering: .relaxed))
        guard let address = configuration.web, let view else { return }
        do {
            let made = try WebServer(view: view, address: address, token: configuration.webToken)
            try made.start()
            page = made
        } catch {
            _ = stop()
            throw error
        }
    }

    /// Control thread, after each `waitForWork`: writes what the process thread reported, loads the
    /// plugin states OSC asked for, lets the mood DJ pick tracks, releases retired clips,
    /// answers the session manager, and watches the server.
    public func tick() {
        rates.tick()
        watchHearts()
        logs.drain(view: view)
        pluginMainThreads = handle.servePluginMainThreads()
        for line in handle.drainPluginLogs() { log("plugin \(line)") }
        for line in handle.rescuePlugins() { log(line) }
        for request in requests.withLockedValue({ pending in defer { pending.removeAll() }; return pending }) { perform(request) }
        reportLatency()
        client.setRequestedLatencies()
        pickTracks()
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
                          besides: [stop.descriptor, watch.deadline.descriptor] + (configuration.sessionManager.map { [$0.client.descriptor] } ?? [])
                              + pluginMainThreads.descriptors,
                          closeWatch: watchesClosely || watch.isReconnecting, watchTicks: watch.needsTicks,
                          due: [inputs.hearts.nextCheck(), pluginMainThreads.dueSeconds.map { MonotonicClock.seconds + $0 }].compactMap { $0 }.min())
    }

    /// Control thread. `message` into the engine, through the session's own ring (false: full).
    public func send(_ message: ControlMessage) -> Bool { inputs.control.send(message) }

    /// Whether the JACK server is gone and a reconnection is being tried.
    public var isReconnecting: Bool { watch.isReconnecting }

    /// After a stop whose close was abandoned: exits (status 0) without libjack's teardown at
    /// exit, which would wait on the same unanswering server.
    public static func exitLeavingTheClient() -> Never {
        fflush(nil)  // every open output stream: stdout's last lines
        _exit(0)
    }

    /// Stops the page and the input sources, deactivates the client, finishes every file (the
    /// recording's header, the session log), closes the client, and stops a server we started;
    /// the summary of the run. Once. Each wait on the server has `closeSeconds`: a dying or
    /// stopped server can hold libjack for ever, and the client is abandoned then (the files
    /// finished all the same; `closeAbandoned` says so).
    public func stop(closeSeconds: Double = 2) -> Summary {
        precondition(!stopped, "a live session stops once")
        stopped = true
        page?.stop()
        for source in sources { source.stop() }
        inputs.publisher.stop()
        view?.stop()
        inputs.lslOut?.stop()
        // A server that does not answer leaves the process thread where it is: the files are
        // finished then from what the engine published, and the client is left to it.
        let deactivated = watch.isReconnecting || client.deactivate(within: closeSeconds)
        rates.stop()
        let endFrame = deactivated ? engine.framePosition
            : handle.publishedPeriodStart.load(ordering: .relaxed) + Int64(client.bufferSize)
        logs.drain(view: view)
        logs.finish(endFrame: endFrame)
        handle.ringsOnPluginLogs(false)
        let recorded = finishTakes()
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

    /// Every take's summary, the last one finished now.
    private func finishTakes() -> String {
        var takes = rates.finishedTakes
        if let recorder = rates.take.withLockedValue({ $0 }) {
            do { takes.append(try FinishedTake(recorder)) } catch { log("\(error)") }
        }
        return takes.map(\.summary).joined()
    }
}
