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

    /// True when ALSA lists at least one sound card.
    public static var hasSoundCard: Bool {
        guard let cards = try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8) else { return false }
        return !cards.contains("no soundcards") && !cards.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// Starts jackd with a sound card's ALSA driver where there is one, else the dummy driver,
    /// and waits (up to 10 s) until it answers.
    public static func start(sampleRate: Int = 48000, periodFrames: Int = 256) throws -> JackServer {
        let name = JackClient.serverName
        let driverArguments = hasSoundCard
            ? ["-d", "alsa", "-r", "\(sampleRate)", "-p", "\(periodFrames)"]
            : ["-d", "dummy", "-r", "\(sampleRate)", "-p", "\(periodFrames)"]
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
                           registryFull: said.contains(registryFullMessage))
    }

    /// What jackd2 prints when its shared-memory registry (8 servers) has no free slot.
    public static let registryFullMessage = "Too many servers already active"

    public struct StartFailure: Error, CustomStringConvertible {
        public var command: String
        public var registryFull = false
        public var description: String {
            guard registryFull else { return "could not start a JACK server with `\(command)`" }
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
