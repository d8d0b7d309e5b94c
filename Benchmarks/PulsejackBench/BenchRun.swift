import Foundation
import TestSupport

/// `pulsejack run` from the release build on the bench's private server, inside `network`
/// when given (Link's or LSL's discovery stays there), its output discarded: started and its
/// ports waited for; interrupted and waited for by `stop`.
final class BenchRun {
    private let process = Process()

    init(_ arguments: [String], client name: String, server: PrivateJackServer, network: LabNetwork? = nil) throws {
        let executable = BenchFixtures.repository.appendingPathComponent(".build/release/pulsejack").path
        let command = network?.command(executable, arguments) ?? (executable: executable, arguments: arguments)
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server.name]) { $1 }
        (process.standardOutput, process.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try process.run()
        guard try Subprocess.waitForPorts(of: name, server: server.name, seconds: 10) else {
            stop()
            throw BenchFailure("pulsejack did not start")
        }
    }

    func stop() {
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
    }

    deinit { stop() }
}
