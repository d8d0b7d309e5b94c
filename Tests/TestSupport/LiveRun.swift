import Foundation

/// A `pulsejack run` a test started on its JACK server, its output kept until it stops.
public final class LiveRun {
    public let process: Process
    private let output = Pipe()

    /// Starts `pulsejack ARGUMENTS` against the JACK server `server`.
    public init(_ arguments: [String], server: String, environment: [String: String] = [:]) throws {
        process = try Subprocess.startPulsejack(arguments, server: server, output: output, environment: environment)
    }

    /// Sends `signal` (SIGINT unless told), waits for the exit, and returns its status and
    /// everything the run printed. Once it has stopped, it only returns those again.
    @discardableResult
    public func stop(signal: Int32 = SIGINT) -> (status: Int32, printed: String) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        if printed == nil { printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        return (process.terminationStatus, printed ?? "")
    }

    private var printed: String?
}
