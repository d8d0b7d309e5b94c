import Foundation
import Realtime

/// A private jackd with the dummy driver (no sound card) that a test or benchmark starts,
/// stops and may start again under the same name.
///
/// Names are fixed, one per use (`pulsejack-timebase`, …), never made from a process id: JACK's
/// server registry has 8 slots, and a server that died uncleanly frees its slot only when one
/// of the same name starts again. New names every run would fill it for good.
public final class PrivateJackd {
    public let name: String
    public let periodFrames: Int
    /// The rate it starts at (48 kHz; a test may start it again at another).
    public var sampleRate = 48_000
    private var process: Process?
    private let output = LockedBox("")

    /// The last 4000 characters the server printed since it last started, for a failure's message.
    public var recentOutput: String { output.withLockedValue { $0 } }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts `jackd --no-realtime -n NAME -d dummy -r RATE -p PERIOD` (48 kHz) and waits until it serves clients.
    public init(name: String, periodFrames: Int = 256) throws {
        self.name = name
        self.periodFrames = periodFrames
        try start()
    }

    public var isRunning: Bool { process?.isRunning ?? false }

    /// The running server's process id, for a test that signals it itself.
    public var processIdentifier: Int32? { isRunning ? process?.processIdentifier : nil }

    /// Waits (at most `seconds`) for a server a test signalled itself to exit.
    public func waitForExit(seconds: Double = 10) -> Bool {
        let deadline = Date() + seconds
        while isRunning && Date() < deadline { usleep(20_000) }
        return !isRunning
    }

    /// Servers start one at a time: jackd2 servers starting together race for JACK's shared
    /// registry, and one fails to start (a test that runs several side by side saw it).
    private static let starting = NSLock()

    public func start() throws {
        try Self.starting.withLock { try startAlone() }
    }

    private func startAlone() throws {
        guard !isRunning else { return }
        let process = Process()
        Subprocess.keepForTheSuite(process)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        process.arguments = ["--no-realtime", "-n", name, "-d", "dummy", "-r", "\(sampleRate)", "-p", "\(periodFrames)"]
        let log = Pipe()
        process.standardOutput = log
        process.standardError = log
        try Subprocess.launch(process)
        self.process = process
        let waited = try Subprocess.run("/usr/bin/jack_wait", ["-s", name, "-w", "-t", "15"], environment: ["JACK_NO_START_SERVER": "1"])
        guard waited.status == 0 else {
            stop()
            let said = String(decoding: log.fileHandleForReading.availableData, as: UTF8.self)
            if said.contains("Too many servers already active") {
                throw Failure(description: "jackd -n \(name): JACK's server registry is full (8 slots, stale ones kept by killed servers). Stop the jackd processes you do not need (pgrep -a jackd), or with none running: rm /dev/shm/jack-shm-registry")
            }
            throw Failure(description: "jackd -n \(name) -d dummy did not start: \(waited.stderr)")
        }
        // jackd keeps talking: drain its output so a full pipe never blocks it, keeping its tail.
        output.withLockedValue { $0 = "" }
        log.fileHandleForReading.readabilityHandler = { [output] handle in
            let said = String(decoding: handle.availableData, as: UTF8.self)
            output.withLockedValue { $0 = String(($0 + said).suffix(4000)) }
        }
    }

    /// Stops the server (SIGTERM) and waits for it to exit; one still running 10 s later is
    /// killed, so a wedged server fails its test rather than hanging the suite.
    public func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        if !waitForExit(seconds: 10) {
            FileHandle.standardError.write(Data("jackd -n \(name) did not stop within 10 s of SIGTERM: killed\n".utf8))
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    deinit { stop() }
}
