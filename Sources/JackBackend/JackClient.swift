import Atomics
import CJack
import Inputs
import Foundation
import Voices
import Realtime
import Engine

/// The JACK client: stereo outputs `out_L`/`out_R`, `midi_in`, `midi_out` and a stereo audio
/// input `in_L`/`in_R` (for dense convolution), with the engine's process path as its process
/// callback. When the server goes away, the engine and everything around it stay; `reconnect`
/// opens a new client under the same name and picks up where it left off. Control thread,
/// except where marked.
public final class JackClient: Sendable {
    /// The live client (nil once closed or while the server is gone), its name and period, and
    /// the connections last seen: read by the status and OSC threads, changed by the control thread.
    private struct Connection {
        var handle: OpaquePointer?
        var name: String
        var lastSeen: [(String, String)] = []
        /// Our ports' names (the grid's among them when the options ask).
        var portNames = JackClient.ports.map(\.name)
        /// The client and ports we gave metadata (pretty names, order): removed before closing.
        var described: [jack_uuid_t] = []
    }
    private let connection: LockedBox<Connection>
    /// The name asked for; JACK may have made it unique (`name`).
    public let requestedName: String
    /// Our client's name on the server (any thread).
    public var name: String { connection.withLockedValue { $0.name } }
    /// The server's sample rate (any thread), followed through its changes (`ServerRate`).
    public var sampleRate: Int { rate.rate.load(ordering: .relaxed) }
    let rate: ServerRate
    /// Times the server changed its sample rate while we ran (any thread).
    public var rateChanges: Int { rate.changes.load(ordering: .relaxed) }
    /// Whether the process thread has stopped the engine for a rate it was not built for and
    /// waits for one rebuilt at the server's (any thread).
    public var waitsForRebuiltEngine: Bool { rate.engineState.load(ordering: .acquiring) != ServerRate.State.running }
    /// Frames a period (any thread): the server's, followed through period changes.
    public var bufferSize: Int { period.load(ordering: .relaxed) }
    /// Set by JACK's buffer-size callback, which may run while the control thread holds
    /// `connection` waiting on the server: an atomic, never that lock.
    private let period = ManagedAtomic<Int>(0)
    private let periodChangeCount = ManagedAtomic<Int>(0)
    /// Times the server changed the period while we ran (any thread).
    public var periodChanges: Int { periodChangeCount.load(ordering: .relaxed) }
    /// Whether another client (or we) put the graph in freewheel (any thread).
    public var freewheeling: Bool { freewheelState.load(ordering: .relaxed) }
    private let freewheelState = ManagedAtomic<Bool>(false)
    /// The flag behind `freewheeling`, for a recording to read on the process thread.
    public var freewheelFlag: ManagedAtomic<Bool> { freewheelState }
    /// Whether the server took our metadata (pretty names, order); PipeWire without a session
    /// manager has no `default` metadata object to hold it (any thread).
    public var metadataAvailable: Bool { !metadataRefused.load(ordering: .relaxed) }
    private let metadataRefused = ManagedAtomic<Bool>(false)
    /// The libjack this process talks through: jackd2's or PipeWire's.
    public var server: JackServerIdentity { .current }
    /// The engine this client runs, what it was activated with, and what the process callback
    /// reaches: kept for a reconnect. Taken before `connection`'s lock, never inside it.
    private let attachment = LockedBox(Attachment())
    private struct Attachment {
        var engine: RealtimeEngine?
        var options = Options()
        var host: ProcessHost?
        var timebaseRefusal: String?
    }
    /// Posted (like a signal handler would) when the server shuts the client down.
    private let shutdown = ShutdownNotice()
    /// Whether the server has shut the client down (any thread).
    public var serverGone: Bool { shutdown.isPosted }
    /// Why taking the timebase failed, if it did.
    public var timebaseRefusal: String? { attachment.withLockedValue { $0.timebaseRefusal } }
    /// Connections of our ports, as last seen while the server ran: restored after a reconnect.
    /// Control thread. Guarded by `handleLock`.
    public var knownConnections: [(String, String)] { connection.withLockedValue { $0.lastSeen } }
    /// Set by JACK's port-connect callback (any connection on the server made or broken) and at
    /// each activation: `knownConnections` is read again only then, not on a timer.
    private let connectionsChanged = ManagedAtomic<Bool>(true)
    private let reconnectCount = ManagedAtomic<Int>(0)
    /// Times the client came back after the server went away (any thread).
    public var reconnects: Int { reconnectCount.load(ordering: .relaxed) }

    /// Opens a client on the running server; never starts one.
    public init(name: String) throws {
        if let problem = Self.problem(withName: name) { throw Failure.badName(problem) }
        requestedName = name
        let client = try Self.open(name)
        connection = LockedBox(Connection(handle: client, name: String(cString: jack_get_client_name(client))))
        period.store(Int(jack_get_buffer_size(client)), ordering: .relaxed)
        rate = ServerRate(Int(jack_get_sample_rate(client)))
    }

    /// Control thread. Asks JACK to gather every client's latencies again (ours changed).
    public func recomputeLatencies() {
        withClient { handle, _ in _ = jack_recompute_total_latencies(handle) }
    }

    /// Control thread, at each wake-up: under PipeWire, sets our ports' latencies if JACK's
    /// latency callback asked since the last time (see `ProcessHost.reportLatency`).
    public func setRequestedLatencies() {
        guard let host = attachment.withLockedValue({ $0.host }) else { return }
        withClient { _, _ in host.setRequestedLatencies() }
    }

    /// Runs `body` with the live client while holding the lock, so the client cannot be closed
    /// under it; nil when there is none. `body` must not read `name` (same lock).
    func withClient<Result>(_ body: (OpaquePointer, String) throws -> Result) rethrows -> Result? {
        try connection.withLockedValue { state in
            guard let handle = state.handle else { return nil }
            return try body(handle, state.name)
        }
    }

    private static func open(_ name: String) throws -> OpaquePointer {
        var status = jack_status_t(rawValue: 0)
        let unnamed = ThreadName.unnamed()
        guard let client = pj_client_open(name, JackNoStartServer, &status, nil) else {
            if status.rawValue & JackServerFailed.rawValue != 0 { throw Failure.noServer(server: serverName) }
            throw Failure.openFailed(status: status.rawValue)
        }
        // libjack's own threads (its server channel), which it leaves unnamed.
        ThreadName.nameNew(since: unnamed, "pj-jack")
        return client
    }

    deinit { close() }

    /// Deactivates (if active) and closes the client; later calls do nothing.
    public func close() {
        guard let closing = takeForClosing() else { return }
        if !serverGone { forget(closing.described, on: closing.handle, name: closing.name) }
        jack_client_close(closing.handle)
    }

    /// Deactivates the client on a thread of its own, waiting at most `seconds`; false when the
    /// server did not answer in time (a stopped or dying server holds libjack's locks): the
    /// client is then let go without a word to the server, never touched again.
    public func deactivate(within seconds: Double) -> Bool {
        guard let live = connection.withLockedValue({ $0.handle.map { ClosingClient(handle: $0, described: [], name: "") } }) else { return true }
        guard finishes(within: seconds, { jack_deactivate(live.handle) }) else {
            _ = takeForClosing()
            return false
        }
        return true
    }

    /// Closes the (deactivated) client on a thread of its own, waiting at most `seconds`; false
    /// when the server did not let it go in time: the thread is abandoned with the client,
    /// which nobody else holds any more.
    public func close(within seconds: Double) -> Bool {
        guard let closing = takeForClosing() else { return true }
        let forgets = !serverGone
        return finishes(within: seconds) { [self] in
            if forgets { forget(closing.described, on: closing.handle, name: closing.name) }
            jack_client_close(closing.handle)
        }
    }

    /// A client handle on its way to `jack_client_close` (on a thread of its own, or dropped),
    /// with what it described and its name.
    // @unchecked: an immutable pointer, taken out of `connection` before it is handed over.
    private struct ClosingClient: @unchecked Sendable {
        let handle: OpaquePointer
        let described: [jack_uuid_t]
        let name: String
    }

    /// Takes the live client out of `connection` (nil when there is none): from then on its
    /// taker is its only user.
    private func takeForClosing() -> ClosingClient? {
        connection.withLockedValue { state in
            defer { state.handle = nil; state.described = [] }
            return state.handle.map { ClosingClient(handle: $0, described: state.described, name: state.name) }
        }
    }

    /// Removes our metadata, and returns once the server has told every client so.
    ///
    /// jackd2 (1.9.21) tells every client, the closing one too, of each port whose metadata it
    /// deletes at close, but `jack_client_close` has stopped the closing client's notification
    /// reader first: with dozens of described ports (`--outputs voices`) the server's writes
    /// fill our socket, and server and client wait on each other for ever. Removed here, while
    /// the reader still reads, the close has nothing left to tell. libjack sends each removal's
    /// notification request without waiting, and the server handles our requests in order, so
    /// one request that waits for its answer (a client-name lookup) returns only after the
    /// server has sent them all.
    private func forget(_ subjects: [jack_uuid_t], on handle: OpaquePointer, name: String) {
        guard !subjects.isEmpty else { return }
        for subject in subjects { jack_remove_properties(handle, subject) }
        if let uuid = jack_get_uuid_for_client_name(handle, name) { jack_free(uuid) }
    }

    /// Control thread: the server is taken for gone though no shutdown callback came (a probe
    /// found it unreachable); the reconnection takes over as after a callback.
    public func declareServerGone(reason: String) {
        reason.withCString { shutdown.post(reason: $0) }
    }

    /// Why the server shut the client down, once `serverGone` is set.
    public var shutdownMessage: String { shutdown.reason ?? "" }

    /// Registers ports, installs the callbacks, warms the engine and activates. The engine's
    /// setup has the ports' layout and grid role that `options` name.
    public func activate(engine: RealtimeEngine, options: Options = Options()) throws {
        precondition(options.outputs.buses.count == engine.outputCount && options.outputs.midiVoices.count == engine.voiceMIDIPortCount,
                     "an engine set up with the ports' layout (EngineSetup.outputs)")
        precondition(engine.followsGrid == (options.followTransport || options.link?.settings.follows == true) && engine.sendsGrid == (options.timebase != .off),
                     "an engine set up with the grid role (EngineSetup.sendsGrid, followsGrid)")
        attachment.withLockedValue { $0.engine = engine; $0.options = options }
        connection.withLockedValue { $0.portNames = Self.ports(for: options).map(\.name) }
        engine.warmUp()
        try attach()
    }

    private func attach() throws {
        try attachment.withLockedValue { attached in
            guard let engine = attached.engine else { return }
            let described = try withClient { client, name in try attach(engine: engine, client: client, name: name, to: &attached) }
            connection.withLockedValue { $0.described = described ?? [] }
        }
    }

    /// Registers and describes the ports, installs the callbacks and activates; returns the
    /// subjects it gave metadata.
    private func attach(engine: RealtimeEngine, client: OpaquePointer, name: String, to attached: inout Attachment) throws -> [jack_uuid_t] {
        let options = attached.options
        var registered: [OpaquePointer] = []
        for port in Self.ports(for: options) {
            guard let handle = jack_port_register(client, port.name, port.type,
                                                  UInt((port.output ? JackPortIsOutput : JackPortIsInput).rawValue), 0) else {
                throw Failure.portFailed(port.name)
            }
            registered.append(handle)
        }
        let described = describe(ports: registered, client: client, name: name, options: options)
        let host = ProcessHost(engine: engine, ports: registered, client: self, handle: client, options: options, serverRate: rate)
        attached.host = host
        attached.timebaseRefusal = host.installCallbacks(on: client, timebase: options.timebase)
        connectionsChanged.store(true, ordering: .releasing)
        let unnamed = ThreadName.unnamed()
        guard jack_activate(client) == 0 else { throw Failure.activateFailed }
        host.links.update()
        ThreadName.nameNew(since: unnamed, "pj-jack")
        // PipeWire's process thread starts in jack_activate and can run its first period (and
        // name itself) before the line above renamed it with libjack's others.
        host.restoreProcessThreadName()
        return described
    }

    /// Readable names and a stable order for patchbays (JACK metadata, as jalv does).
    /// Returns the subjects (client and ports) it set properties on.
    private func describe(ports: [OpaquePointer], client: OpaquePointer, name: String, options: Options) -> [jack_uuid_t] {
        let integer = "http://www.w3.org/2001/XMLSchema#integer"
        var subjects: [jack_uuid_t] = []
        var refused = false
        if let uuidString = jack_get_uuid_for_client_name(client, name) {
            var uuid = jack_uuid_t()
            if jack_uuid_parse(uuidString, &uuid) == 0 {
                if jack_set_property(client, uuid, pj_metadata_pretty_name(), "pulsejack", nil) == 0 { subjects.append(uuid) } else { refused = true }
            }
            jack_free(uuidString)
        }
        let described = Self.ports(for: options)
        for (index, port) in ports.enumerated() {
            let uuid = jack_port_uuid(port)
            let named = jack_set_property(client, uuid, pj_metadata_pretty_name(), described[index].pretty, nil) == 0
            let ordered = jack_set_property(client, uuid, pj_metadata_order(), "\(index + 1)", integer) == 0
            if named || ordered { subjects.append(uuid) }
            refused = refused || !named || !ordered
        }
        metadataRefused.store(refused, ordering: .relaxed)
        return subjects
    }

    /// Full names of our output ports.
    public var outputPortNames: [String] { Self.outputPortNames(of: name) }

    private static func outputPortNames(of client: String) -> [String] { ["\(client):out_L", "\(client):out_R"] }

    /// Connects out_L/out_R to the first two physical playback ports; returns what it connected.
    @discardableResult
    public func connectToPlayback() -> [(String, String)] {
        withClient { client, name in
            guard let ports = jack_get_ports(client, nil, JACK_DEFAULT_AUDIO_TYPE,
                                             UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)) else { return [] }
            defer { jack_free(ports) }
            var playback: [String] = []
            var index = 0
            while let port = ports[index] { playback.append(String(cString: port)); index += 1 }
            var made: [(String, String)] = []
            for (source, destination) in zip(Self.outputPortNames(of: name), playback)
            where jack_connect(client, source, destination) == 0 {
                made.append((source, destination))
            }
            return made
        } ?? []
    }

    /// Connects one of our ports (`out_L`, or a full name) with another client's port, in the
    /// direction their kinds allow. Throws a message naming both when JACK refuses.
    public func connect(_ ours: String, _ theirs: String) throws {
        let connected: Void? = try withClient { client, name in
            let full = ours.contains(":") ? ours : "\(name):\(ours)"
            guard let port = jack_port_by_name(client, full) else { throw PortError("no port \(full)") }
            guard jack_port_by_name(client, theirs) != nil else { throw PortError("no port \(theirs) on the JACK server") }
            let output = (jack_port_flags(port) & Int32(JackPortIsOutput.rawValue)) != 0
            let status = output ? jack_connect(client, full, theirs) : jack_connect(client, theirs, full)
            guard status == 0 || status == EEXIST else { throw PortError("JACK refused to connect \(full) and \(theirs)") }
        }
        if connected == nil { throw PortError("pulsejack is not connected to a JACK server") }
    }

    /// Whether the server has a port of this full name (control thread).
    public func portExists(_ fullName: String) -> Bool {
        withClient { client, _ in jack_port_by_name(client, fullName) != nil } ?? false
    }

    public struct PortError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// JACK's port-connect callback (its notification thread): the graph's connections changed.
    func connectionsMayHaveChanged() {
        connectionsChanged.store(true, ordering: .releasing)
    }

    /// Control thread. Reads our ports' connections again if they may have changed since the
    /// last read (`knownConnections`); at rest, nothing.
    public func followConnections() {
        guard !serverGone, connectionsChanged.exchange(false, ordering: .acquiring) else { return }
        connections()
    }

    /// Every connection of our ports, as (our port, other port); updates `knownConnections`.
    @discardableResult
    public func connections() -> [(String, String)] {
        let gone = serverGone
        return connection.withLockedValue { state in
            guard let handle = state.handle, !gone else { return state.lastSeen }
            var found: [(String, String)] = []
            for port in state.portNames {
                guard let ours = jack_port_by_name(handle, "\(state.name):\(port)"),
                      let others = jack_port_get_all_connections(handle, ours) else { continue }
                var index = 0
                while let other = others[index] { found.append(("\(state.name):\(port)", String(cString: other))); index += 1 }
                jack_free(others)
            }
            state.lastSeen = found
            return found
        }
    }

    public func deactivate() {
        withClient { client, _ in _ = jack_deactivate(client) }
    }

    // MARK: - What JACK's callbacks tell (`ProcessHost+Callbacks`)

    /// A shutdown callback: runs like a signal handler (no allocation, no lock).
    func serverShutDown(reason: UnsafePointer<CChar>?) { shutdown.post(reason: reason) }

    /// The buffer-size callback (its own thread, before the first cycle of the new size).
    func periodChanged(to frames: Int) {
        if period.exchange(frames, ordering: .relaxed) != frames { periodChangeCount.wrappingIncrement(ordering: .relaxed) }
    }

    /// The freewheel callback.
    func freewheelChanged(_ on: Bool) { freewheelState.store(on, ordering: .relaxed) }

    /// Asks the server to run the graph as fast as possible (JACK's freewheel mode) or to return
    /// to real time. Control thread.
    public func setFreewheel(_ on: Bool) {
        withClient { client, _ in _ = jack_set_freewheel(client, on ? 1 : 0) }
    }

    /// Control thread: the engine and take a rate change swapped in are what a reconnect
    /// re-activates.
    func keepAfterReconnect(_ swap: EngineSwap) {
        attachment.withLockedValue { attached in
            attached.engine = swap.engine
            if swap.recorder != nil { attached.options.recorder = swap.recorder }
        }
    }

    // MARK: - Surviving the server

    /// After `serverGone`: lets go of the dead client. `jack_client_close` can hang after a
    /// server restart (jack2#395), so it runs on its own thread and is abandoned after a second:
    /// false then. A close that hangs holds libjack's open lock, which every new client waits on.
    @discardableResult
    public func releaseDeadClient() -> Bool {
        guard let dead = takeForClosing() else { return true }
        return finishes(within: 1) { jack_client_close(dead.handle) }
    }

    /// Opens a new client under the same name on a server that is back, re-activates the same
    /// engine (its state kept) and restores the connections it had. Throws while no server runs.
    public func reconnect() throws {
        guard connection.withLockedValue({ $0.handle == nil }) else { return }
        let client = try Self.open(requestedName)
        // A server back at another rate: the engine waits parked until one rebuilt for it comes.
        rate.changed(to: Int(jack_get_sample_rate(client)))
        connection.withLockedValue { state in
            state.handle = client
            state.name = String(cString: jack_get_client_name(client))
        }
        period.store(Int(jack_get_buffer_size(client)), ordering: .relaxed)
        shutdown.clear()
        do { try attach() } catch {
            releaseDeadClient()
            throw error
        }
        reconnectCount.wrappingIncrement(ordering: .relaxed)
    }

    /// Remakes the connections known before the server went away, where both ends exist again;
    /// returns those still missing.
    @discardableResult
    public func restoreConnections(_ wanted: [(String, String)]) -> [(String, String)] {
        wanted.filter { ours, theirs in
            let port = ours.split(separator: ":").last.map(String.init) ?? ours
            return (try? connect(port, theirs)) == nil
        }
    }
}
