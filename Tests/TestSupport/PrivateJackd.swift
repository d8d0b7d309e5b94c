import Foundation

/// A private jackd with the dummy driver (no sound card) that a test or benchmark starts,
/// stops and may start again under the same name.
public final class PrivateJackd {
    public let name: String
    public let periodFrames: Int
    private var process: Process?

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts `jackd --no-realtime -n NAME -d dummy -r 48000 -p PERIOD` and waits until it serves clients.
    public init(name: String, periodFrames: Int = 256) throws {
        self.name = name
        self.periodFrames = periodFrames
        try start()
    }

    public var isRunning: Bool { process?.isRunning ?? false }

    public func start() throws {
        guard !isRunning else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        process.arguments = ["--no-realtime", "-n", name, "-d", "dummy", "-r", "48000", "-p", "\(periodFrames)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let waited = try Subprocess.run("/usr/bin/jack_wait", ["-s", name, "-w", "-t", "15"], environment: ["JACK_NO_START_SERVER": "1"])
        guard waited.status == 0 else {
            stop()
            throw Failure(description: "jackd -n \(name) -d dummy did not start: \(waited.stderr)")
        }
    }

    /// Stops the server (SIGTERM) and waits for it to exit.
    public func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
