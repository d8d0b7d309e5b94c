import Inputs
import Foundation
import Realtime

/// Runs a program and collects its output; for tests.
public struct Subprocess {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// The folder holding the built products (the test executable sits beside `pulsejack`).
    public static var productsFolder: URL {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// The tool the tests run: `PULSEJACK_TOOL` when set (`make test-tsan` runs the plain build's
    /// tool, so sanitizer slowdown never lands on a live subprocess's timing), else the one beside us.
    public static var pulsejack: String {
        ProcessInfo.processInfo.environment["PULSEJACK_TOOL"] ?? productsFolder.appendingPathComponent("pulsejack").path
    }

    public struct MissingProduct: Error, CustomStringConvertible {
        public var description: String
    }

    /// The tests run the built tool; `make test` builds it first (a test target cannot depend on
    /// an executable target here without SwiftPM dropping the test target).
    public static func requirePulsejack() throws {
        guard FileManager.default.isExecutableFile(atPath: pulsejack) else {
            throw MissingProduct(description: "\(pulsejack) is not built: run `swift build` first (make test does)")
        }
    }

    /// Foundation's `Process` on Linux frees a finished process (and the pipes it holds) on its
    /// own monitoring thread, and closing one of those descriptors there came after the number was
    /// reused: ThreadSanitizer caught a finished test's process closing the next test's pipe. Every
    /// process the tests start (a few dozen descriptors) is therefore kept until the suite ends.
    private static let kept = LockedBox<[Process]>([])

    public static func keepForTheSuite(_ process: Process) { kept.withLockedValue { $0.append(process) } }

    /// Foundation's `Process.run` on Linux registers the child with a run-loop source array that
    /// two launching threads update unguarded (ThreadSanitizer caught it when a test started
    /// servers side by side): the tests' launches take turns.
    private static let launching = NSLock()

    public static func launch(_ process: Process) throws { try launching.withLock { try process.run() } }

    /// The repository root (for shipped presets).
    public static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @discardableResult
    /// Runs to the end; with `timeout`, a program still running after that many seconds gets
    /// SIGINT (how a user stops `pulsejack run`).
    ///
    /// JACK's own tools (`jack_lsp`, `jack_property` …) are always bounded (20 s, past
    /// `jack_wait -t 15`): jackd2 1.9.21's libjack can hang in `jack_client_close`, its main
    /// thread waiting on a lock while its notification thread waits for the server, when other
    /// clients register ports and set their metadata meanwhile (a `jack_lsp` poll hung so for
    /// ten minutes while pulsejack and jalv started). What the tool printed comes before its
    /// close, so its answer is kept.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           in folder: URL? = nil, timeout: Double? = nil) throws -> Subprocess {
        let timeout = timeout ?? (URL(fileURLWithPath: executable).lastPathComponent.hasPrefix("jack_") ? 20 : nil)
        let process = Process()
        keepForTheSuite(process)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try launch(process)
        // The timer thread gets only the pid (Process itself is not for two threads), and is
        // cancelled once the program has exited.
        let pid = process.processIdentifier
        let interrupt = DispatchWorkItem { kill(pid, SIGINT) }
        if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: interrupt) }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        interrupt.cancel()
        process.waitUntilExit()
        return Subprocess(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                          stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts `pulsejack ARGUMENTS` against the JACK server `server`, output discarded (or to
    /// `output`); the caller interrupts it (SIGINT) and waits.
    /// `network`: inside that namespace (a run that reads or writes LSL streams).
    public static func startPulsejack(_ arguments: [String], server: String, output: Pipe? = nil,
                                      environment: [String: String] = [:], network: LabNetwork? = nil) throws -> Process {
        let process = Process()
        keepForTheSuite(process)
        let command = network?.command(pulsejack, arguments) ?? (executable: pulsejack, arguments: arguments)
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server]) { $1 }
            .merging(environment) { $1 }
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = output ?? FileHandle.nullDevice
        try launch(process)
        return process
    }

    /// Waits (up to `seconds`) until the JACK client `client` has its ports on `server`; false if it never did.
    @discardableResult
    public static func waitForPorts(of client: String, server: String, seconds: Double = 5, port: String = "out_L") throws -> Bool {
        for _ in 0..<Int(seconds * 10) {
            if try run("/usr/bin/jack_lsp", [], environment: ["JACK_DEFAULT_SERVER": server]).stdout.contains("\(client):\(port)") { return true }
            usleep(100_000)
        }
        return false
    }

    /// Finds a program on the PATH.
    public static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
