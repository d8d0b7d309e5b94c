import Atomics
import CJack
import Foundation

/// A jackd that pulsejack started itself (`run --start-server`), stopped when we exit.
/// pulsejack never starts a server unless asked: it joins the user's.
public final class JackServer {
    public let process: Process
    public let driver: String
    public let name: String

    /// Whether a server named `JACK_DEFAULT_SERVER` (or "default") answers.
    public static func isRunning() -> Bool {
        var status = jack_status_t(rawValue: 0)
        // Never the server's own name: such a client would take the server's socket.
        let probe = JackClient.serverName == "pulsejack-probe" ? "pulsejack-probe-2" : "pulsejack-probe"
        guard let client = pj_client_open(probe, JackNoStartServer, &status, nil) else { return false }
        jack_client_close(client)
        return true
    }

    /// Whether the server answers a new client within `seconds`: nil when the probe got no
    /// answer in time (a stopped or hung server; the probe's thread is left to it).
    public static func answers(within seconds: Double) -> Bool? {
        let answered = ManagedAtomic<Bool>(false)
        guard finishes(within: seconds, { answered.store(isRunning(), ordering: .releasing) }) else { return nil }
        return answered.load(ordering: .acquiring)
    }

    /// True when ALSA lists at least one sound card.
    public static var hasSoundCard: Bool {
        guard let cards = try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8) else { return false }
        return !cards.contains("no soundcards") && !cards.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// A NetJACK2 slave's settings (`run --start-server net`): the slave server joins the
    /// studio's master and runs in its cycles; pulsejack is a client of the slave.
    public struct NetSlave: Sendable {
        /// The master's address; nil: found by NetJACK2's multicast (225.3.19.154:19000).
        public var master: String?
        /// Network latency in periods (NetJACK2's `-l`).
        public var latency = 2
        /// The slave's name at the master (its client there: NAME:from_slave_1 …).
        public var name: String

        public init(master: String? = nil, latency: Int = 2, name: String) {
            self.master = master
            self.latency = latency
            self.name = name
        }

        /// The channels pulsejack uses, both ways: audio out_L/out_R back to the master, the
        /// master's capture to in_L/in_R; MIDI 1 (the grid, to grid_in) and 2 (pads, to midi_in)
        /// from the master, midi_out back. (Debian's jackd2 1.9.21 builds the net driver without
        /// its transport-sync option, so the grid travels as MIDI: `SharedGrid`.)
        var driverArguments: [String] {
            ["-d", "net"] + (master.map { ["-a", $0] } ?? []) + ["-C", "2", "-P", "2", "-i", "2", "-o", "1",
                                                               "-n", name, "-l", "\(latency)"]
        }

        /// Our port → the slave's system port, made when the master has joined (and again after a
        /// rejoin, when NetJACK2 makes the system ports anew).
        public static func wiring(following: Bool) -> [ConnectRequest] {
            ["out_L=system:playback_1", "out_R=system:playback_2", "midi_out=system:midi_playback_1",
             "midi_in=system:midi_capture_2", "in_L=system:capture_1", "in_R=system:capture_2"]
                .compactMap(ConnectRequest.init) + (following ? [ConnectRequest("grid_in=system:midi_capture_1")!] : [])
        }
    }

    /// Starts jackd with a sound card's ALSA driver where there is one, else the dummy driver
    /// (or, with `net`, NetJACK2's slave driver), and waits (up to 10 s) until it answers. A net
    /// slave answers before a master has joined; its system ports come when one does.
    public static func start(sampleRate: Int = 48000, periodFrames: Int = 256, net: NetSlave? = nil) throws -> JackServer {
        let name = JackClient.serverName
        let driverArguments = net?.driverArguments ?? (hasSoundCard
            ? ["-d", "alsa", "-r", "\(sampleRate)", "-p", "\(periodFrames)"]
            : ["-d", "dummy", "-r", "\(sampleRate)", "-p", "\(periodFrames)"])
        guard let jackd = ["/usr/bin/jackd", "/usr/local/bin/jackd"].first(where: FileManager.default.isExecutableFile) else {
            throw JackClient.Failure.noServer(server: name)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: jackd)
        process.arguments = ["-n", name] + driverArguments
        // jackd's own words are kept to explain a failure, and dropped otherwise.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-jackd-\(getpid()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let server = JackServer(process: process, driver: driverArguments[1], name: name)
        for _ in 0..<100 {
            if isRunning() { return server }
            if !process.isRunning { break }
            usleep(100_000)
        }
        server.stop()
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw StartFailure(command: ([jackd, "-n", name] + driverArguments).joined(separator: " "),
                           registryFull: said.contains(registryFullMessage),
                           jackdSaid: said.split(separator: "\n").last(where: { line in
                               !["jackdmp", "Copyright", "WARRANTY", "free software", "conditions; see"].contains { line.contains($0) }
                           }).map(String.init))
    }

    /// Control thread. Waits until a NetJACK2 master has joined our slave server (its system
    /// ports exist); false when `stop` said so first.
    public static func waitForNetMaster(stop: () -> Bool) throws -> Bool {
        var status = jack_status_t(rawValue: 0)
        guard let probe = pj_client_open("pulsejack-net-probe", JackNoStartServer, &status, nil) else {
            throw JackClient.Failure.noServer(server: JackClient.serverName)
        }
        defer { jack_client_close(probe) }
        while jack_port_by_name(probe, "system:playback_1") == nil {
            if stop() { return false }
            usleep(100_000)
        }
        return true
    }

    /// Stopped (a signal) while waiting for a NetJACK2 master.
    public struct NetWaitStopped: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "stopped while waiting for the NetJACK2 master" }
    }

    /// What jackd2 prints when its shared-memory registry (8 servers) has no free slot.
    public static let registryFullMessage = "Too many servers already active"

    public struct StartFailure: Error, CustomStringConvertible {
        public var command: String
        public var registryFull = false
        /// jackd's last line, if it said anything.
        public var jackdSaid: String?
        public var description: String {
            guard registryFull else {
                return "could not start a JACK server with `\(command)`" + (jackdSaid.map { " (jackd: \($0))" } ?? "")
            }
            return "could not start a JACK server: JACK's registry of servers is full (8 slots; a jackd that was killed keeps " +
                "its slot until a server of the same name starts again). Stop the servers you do not need (`pgrep -a jackd`); " +
                "if none is running, remove the stale registry with `rm /dev/shm/jack-shm-registry`"
        }
    }

    init(process: Process, driver: String, name: String) {
        self.process = process
        self.driver = driver
        self.name = name
    }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
