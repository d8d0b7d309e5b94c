import Foundation
import Inputs
import Realtime
import Engine
import JackBackend
import OSC
import Renders
import Presets
import SoundFiles

/// How a live session's parts are made, before the engine exists. Control thread.
extension LiveSession {
    /// A JACK server when none runs and the configuration asks for one (a NetJACK2 slave waits
    /// for its master here: it takes the master's rate and period, which the engine is built for).
    /// Never a jackd beside PipeWire: with PipeWire's libjack, PipeWire is the server; with
    /// jackd2's while a PipeWire runs for this user, the user is told to use `pw-jack`.
    static func startServer(_ configuration: Configuration, say: (String) -> Void) throws -> JackServer? {
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

    /// With `--wait-for-server SECONDS` (a unit started at boot, before JACK or PipeWire): looks
    /// for a server twice a second until one answers, the time is up (one clear error), or a stop
    /// signal. One line says it waits; nothing is printed per look.
    static func waitForServer(_ configuration: Configuration, say: (String) -> Void) throws {
        guard configuration.waitForServer > 0, !configuration.startServer, !JackServer.isRunning() else { return }
        say("pulsejack: waiting up to \(String(format: "%g", configuration.waitForServer)) s for JACK server '\(JackClient.serverName)' (jackd or PipeWire)")
        let deadline = MonotonicClock.seconds + configuration.waitForServer
        while MonotonicClock.seconds < deadline {
            if configuration.shouldStop() { throw ServerWaitStopped() }
            usleep(500_000)
            if JackServer.isRunning() {
                say("pulsejack: JACK server '\(JackClient.serverName)' is up")
                return
            }
        }
        throw OptionProblem("--wait-for-server: no JACK server '\(JackClient.serverName)' came up in \(String(format: "%g", configuration.waitForServer)) s")
    }

    /// Stopped (a signal) while waiting for a JACK server to come up.
    public struct ServerWaitStopped: Error, CustomStringConvertible {
        public var description: String { "stopped while waiting for a JACK server" }
    }

    /// Track libraries, scanned once: for the graph's first track and for the mood DJ.
    static func libraries(of loaded: LoadedPreset) throws -> [String: TrackLibrary] {
        var libraries: [String: TrackLibrary] = [:]
        for folder in loaded.voices.compactMap(\.libraryPath) where libraries[folder] == nil {
            libraries[folder] = try TrackLibrary.scan(folder: folder)
        }
        return libraries
    }

    /// The engine's setup at the server's rate and period, with the run's outputs and grid role.
    static func setup(_ configuration: Configuration, loaded: LoadedPreset, client: JackClient,
                      libraries: [String: TrackLibrary]) throws -> EngineSetup {
        var setup = try EngineGraph.setup(preset: loaded, sampleRate: client.sampleRate, maxFrames: client.bufferSize,
                                          libraries: libraries, pluginStateFolder: configuration.sessionManager?.pluginFolder,
                                          isolatePlugins: configuration.isolatePlugins)
        setup.outputs = try OutputLayout(preset: loaded, mode: configuration.outputs, midi: configuration.midiOut)
        (setup.followsGrid, setup.sendsGrid) = (configuration.followTransport || configuration.link?.follows == true, configuration.timebase != .off)
        setup.sendsMIDIClock = configuration.midiClock
        if let link = configuration.link { setup.beatsPerBar = link.quantum }
        return setup
    }

    /// How a take of the recording is opened (the first, and one per sample-rate change).
    static func take(_ configuration: Configuration, client: JackClient) -> (_ path: String, _ rate: Int) throws -> OutputRecorder {
        { [seconds = configuration.recordBufferSeconds, maxFrames = client.bufferSize, freewheeling = client.freewheelFlag] path, rate in
            try OutputRecorder(path: path, sampleRate: rate, maxFrames: maxFrames, seconds: seconds, freewheeling: freewheeling)
        }
    }

    /// Every input source, each ring in `setup` in the order the engine drains them, the status
    /// they report, and the starting tempo (unless a sensor gives the first performer's beats).
    static func inputs(_ configuration: Configuration, loaded: LoadedPreset, setup: inout EngineSetup, client: JackClient,
                       take: LockedBox<OutputRecorder?>, watch: ServerWatch, fired: SPSCRing<FiredVoice>?, meter: OutputMeter,
                       requests: LockedBox<[OSCRequest]>, log: @escaping @Sendable (String) -> Void,
                       say: @escaping @Sendable (String) -> Void) throws -> LiveInputs {
        let handle = setup.handle
        var inputs = try LiveInputs(configuration, loaded: loaded, handle: handle, clock: JackFrameClock(handle: handle, client: client),
                                    meter: meter, log: log, say: say)
        try inputs.addControlInputs(configuration, loaded: loaded, setup: &setup, client: client, fired: fired,
                                    requests: { request in
                                        requests.withLockedValue { $0.append(request) }
                                        handle.controlBell.ring()
                                    }, log: log)
        if let settings = configuration.link {
            let peer = try LinkPeer(settings: settings, bpm: configuration.bpm ?? loaded.preset.bpm ?? 120, client: client)
            inputs.link = peer
            inputs.sources.append(peer)
        }
        for source in inputs.sources { setup.sources.append(source.ring) }
        let status = LiveStatus(handle: handle, client: client, take: take, nsm: configuration.sessionManager?.client,
                                performers: loaded.performerNames, cycles: watch.cycles, grid: configuration.gridRole, tempoSource: configuration.tempoSource, outputs: setup.outputs,
                                hearts: inputs.hearts, moods: inputs.moods, sources: inputs.sources,
                                modulations: setup.modulations.map(\.name), outlets: inputs.lslOut)
        inputs.status.withLockedValue { $0 = status }
        if let tempo = configuration.bpm ?? loaded.preset.bpm, !inputs.sensorGivesBeats(predicting: configuration.predictBeats) {
            inputs.control.send(ControlMessage(.tempo(bpm: tempo)))
        }
        return inputs
    }

    /// What follows the server's sample rate: an engine rebuilt from the same preset and wiring.
    static func rateFollower(_ configuration: Configuration, loaded: LoadedPreset, setup: EngineSetup, libraries: [String: TrackLibrary],
                             client: JackClient, take: LockedBox<OutputRecorder?>, logs: RunLogs,
                             log: @escaping @Sendable (String) -> Void, say: @escaping @Sendable (String) -> Void) -> RateFollower {
        let (wiring, handle, maxFrames, pluginFolder) = (setup.wiring, setup.handle, setup.maxFrames, configuration.sessionManager?.pluginFolder)
        return RateFollower(engine: RealtimeEngine(setup), take: take, client: client, logs: logs, build: { rate in
            var rebuilt = try EngineGraph.setup(preset: loaded, sampleRate: rate, maxFrames: maxFrames, libraries: libraries,
                                                pluginStateFolder: pluginFolder, isolatePlugins: configuration.isolatePlugins,
                                                rebuilding: handle)
            rebuilt.wiring = wiring
            return rebuilt
        }, makeTake: Self.take(configuration, client: client), log: log, say: say)
    }

    /// Track voices with a library: the next track follows the mood of the voice's performer
    /// (the first performer's for the ensemble's voices).
    static func moodDJs(loaded: LoadedPreset, handle: EngineHandle, libraries: [String: TrackLibrary]) -> [(dj: MoodTrackDJ, performer: Int)] {
        loaded.voices.compactMap { voice -> (dj: MoodTrackDJ, performer: Int)? in
            guard let library = voice.libraryPath, let scanned = libraries[library],
                  let dj = MoodTrackDJ(handle: handle, voice: voice.definition.name, library: scanned, seed: UInt64.random(in: 1...UInt64.max))
            else { return nil }
            let performer = loaded.performerIndex(of: voice)
            return (dj, performer >= 0 && performer < max(1, loaded.performerNames.count) ? performer : 0)
        }
    }
}
