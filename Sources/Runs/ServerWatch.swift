import Foundation
import Inputs
import JackBackend
import Realtime

/// A live run's watch over its JACK server, each tick: a server gone (keep the engine and its
/// state, reconnect when one is back, restore the connections), cycles stalled and back (a
/// NetJACK2 master away), a net slave's ports wired to the master's channels (again after each
/// rejoin), and the connections the run asked for. Control thread.
final class ServerWatch {
    private let client: JackClient
    private let log: @Sendable (String) -> Void
    private let say: @Sendable (String) -> Void
    /// Our ports to a net slave's system ports, kept made (the master may join late, or again).
    private let netWiring: [ConnectRequest]
    private let netSlaveName: String?
    private var netJoined = false
    /// `--connect` and `--connect-port`; none under a session manager, which restores its own.
    private let connectToPlayback: Bool
    private let connections: [ConnectRequest]
    private let makesConnections: Bool
    private(set) var reconnection = Reconnection()
    private var lastConnectionCheck = -Double.infinity
    let cycles = CycleWatch()
    /// Expires only when JACK's cycles stop (the process thread pushes it back while they run):
    /// the control thread sleeps on it, and needs no timer for the cycles at rest.
    let deadline = CycleDeadline(seconds: CycleWatch.limit)
    /// Ticks still to look at the cycles, a second apart, since the deadline expired.
    private var cycleChecks = 0

    init(client: JackClient, configuration: LiveSession.Configuration, startedNetSlave: Bool,
         log: @escaping @Sendable (String) -> Void, say: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.log = log
        self.say = say
        netWiring = startedNetSlave ? JackServer.NetSlave.wiring(following: configuration.followTransport) : []
        netSlaveName = configuration.netSlave?.name
        connectToPlayback = configuration.connectToPlayback
        connections = configuration.connections
        makesConnections = configuration.sessionManager == nil
    }

    /// Whether the JACK server is gone and a reconnection is being tried.
    var isReconnecting: Bool { reconnection.isWaiting }

    /// Whether the control thread must wake each `interval` for the watch: cycles stopped or
    /// being looked at, a net slave to wire, connections lost in a restart to make again. At
    /// rest none is: it sleeps until `deadline` expires or its bell rings.
    var needsTicks: Bool { cycleChecks > 0 || cycles.isStalled || !netWiring.isEmpty || !reconnection.pending.isEmpty }

    /// Seconds between watches when nothing else wakes the control thread: a net slave is wired
    /// and connections lost in a restart are tried again about this often. Our connections are
    /// read only when JACK says the graph's changed (`JackClient.followConnections`).
    static let interval = 1.0

    /// Each tick, with the engine's period count now.
    func watch(periods: () -> Int) {
        if client.serverGone && !reconnection.isWaiting {
            log("the JACK server stopped (\(client.shutdownMessage.isEmpty ? "no reason given" : client.shutdownMessage)); keeping the voices and their state, and reconnecting when a server is back")
            reconnection.begin(connections: client.knownConnections)
            if !client.releaseDeadClient() {
                log("libjack did not finish closing the client the stopped server left within a second (jack2#395); "
                    + "it holds libjack's lock on opening clients, so reconnecting waits for it")
            }
        }
        if reconnection.isWaiting && reconnection.due { reconnect(periods: periods) }
        // Expired: the cycles are looked at now and a second later (a stall is a second
        // without a period counted between two looks).
        if deadline.expired() { cycleChecks = 2 }
        if !reconnection.isWaiting {
            watchCycles(periods: periods())
            cycleChecks = max(0, cycleChecks - 1)
        }
        // A little early counts: the control thread's timer wakes it after about `interval`.
        let now = MonotonicClock.seconds
        if !reconnection.isWaiting, now - lastConnectionCheck >= Self.interval - 0.05 {
            lastConnectionCheck = now
            wireNetSlave()
            if !reconnection.pending.isEmpty { reconnection.pending = client.restoreConnections(reconnection.pending) }
        }
        if !reconnection.isWaiting { client.followConnections() }
    }

    private func reconnect(periods: () -> Int) {
        do {
            try client.reconnect()
            say("pulsejack: reconnected to \(client.server.described) as '\(client.name)' after \(reconnection.attempts) attempt(s)")
            reconnection.succeeded()
            cycles.restart(periods: periods())
            deadline.pushBack()
            makeConnections()
        } catch {
            if let line = reconnection.failed(error) { log(line) }
        }
    }

    private func watchCycles(periods: Int) {
        switch cycles.observe(periods: periods) {
        case .stalled?:
            log(netWiring.isEmpty ? "JACK has run no cycle for \(CycleWatch.limit) s; keeping the voices and their state"
                : "the NetJACK2 link to the master is down (no cycle for \(CycleWatch.limit) s); keeping the voices and their state, "
                    + "rejoining when it is back")
            lastProbe = MonotonicClock.seconds
            probeServer()
        case .resumed(let seconds)?:
            say("pulsejack: JACK runs cycles again after \(String(format: "%.1f", seconds)) s" + (netWiring.isEmpty ? "" : " (the NetJACK2 master is back)"))
        case nil:
            let now = MonotonicClock.seconds
            if cycles.isStalled, now - lastProbe >= Self.probeInterval {
                lastProbe = now
                probeServer()
            }
        }
    }

    /// Seconds between probes of a server that runs no cycle.
    static let probeInterval = 3.0
    private var lastProbe = -Double.infinity

    /// A stall may be a server that died without telling us (a shutdown callback the library
    /// never calls): a new client that cannot reach the server proves it gone, and the stall is
    /// treated as its death. A server that does not answer at all (stopped, hung) is left be.
    private func probeServer() {
        guard JackServer.answers(within: 1) == false else { return }
        client.declareServerGone(reason: "the server stopped answering (found by a probe after no cycle ran)")
    }

    /// A net slave's system ports exist once a master has joined (anew after each rejoin):
    /// our ports are connected to them then.
    private func wireNetSlave() {
        guard !netWiring.isEmpty else { return }
        let present = client.portExists("system:playback_1")
        if present && !netJoined { say("pulsejack: joined the NetJACK2 master as '\(netSlaveName ?? client.name)'") }
        netJoined = present
        guard present else { return }
        // Connecting is idempotent (JACK's EEXIST counts as done): after a rejoin, the lost ones come back.
        for request in netWiring {
            do { try client.connect(request.ours, request.theirs) } catch { log("NetJACK2 wiring \(request.ours)=\(request.theirs): \(error)") }
        }
    }

    /// `--connect` and `--connect-port` (not under a session manager): each failure is one
    /// warning, never fatal.
    func makeConnections() {
        guard makesConnections else { return }
        if connectToPlayback && client.connectToPlayback().isEmpty { log("--connect: the server has no physical playback ports") }
        for request in connections {
            do { try client.connect(request.ours, request.theirs) } catch { log("--connect-port \(request.ours)=\(request.theirs): \(error)") }
        }
    }
}
