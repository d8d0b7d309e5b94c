import Foundation
import JackEngine

/// A jackd the benchmark starts for itself (dummy driver), so it never touches the user's server.
final class PrivateJackServer {
    let name: String
    let periodFrames: Int
    private let process = Process()

    init(periodFrames: Int) throws {
        name = "pulsejack-bench-\(getpid())-\(periodFrames)"
        self.periodFrames = periodFrames
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        process.arguments = ["--no-realtime", "-n", name, "-d", "dummy", "-r", "48000", "-p", "\(periodFrames)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        setenv("JACK_DEFAULT_SERVER", name, 1)
        for _ in 0..<150 {
            if JackServer.isRunning() { return }
            usleep(100_000)
        }
        stop()
        throw BenchFailure("jackd -n \(name) -d dummy did not start")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
