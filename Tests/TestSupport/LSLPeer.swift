import Foundation
import Realtime

/// pylsl, from the pinned wheel in the project's venv (`make deps`), as the LSL peer
/// (`scripts/lsl/peer.py`): a process the test starts, which says "ready" once its outlet is open
/// or its inlet resolved. Tests that need it skip, saying why, where the wheel is missing.
public final class LSLPeer: @unchecked Sendable {
    public static var python: String { Subprocess.repository.appendingPathComponent(".build/venv/bin/python").path }
    public static var script: String { Subprocess.repository.appendingPathComponent("scripts/lsl/peer.py").path }

    /// Why pylsl cannot be the peer here, or pulsejack finds no liblsl (nil: both can).
    public static let missing: String? = {
        guard FileManager.default.isExecutableFile(atPath: python),
              let check = try? Subprocess.run(python, ["-c", "import pylsl; print(pylsl.library_version())"], timeout: 30),
              check.status == 0 else {
            return "pylsl (and its liblsl) is not in .build/venv: `make deps` installs the pinned wheel"
        }
        if let missing = LabNetwork.missing { return missing }
        guard let network = try? LabNetwork("lsl-check") else { return "no network namespace could be made for LSL's peers" }
        defer { network.remove() }
        if let found = try? network.run(Subprocess.pulsejack, ["lsl", "--wait", "0.2"], timeout: 30), found.status != 0 {
            return "pulsejack finds no liblsl: \(found.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        return nil
    }()

    public let process: Process
    private let lines = LockedBox<[String]>([])
    private let errors = LockedBox<String>("")

    /// Starts `peer.py ARGUMENTS` (`script`: another peer's, Link's) inside `network` and waits
    /// (up to `seconds`) for its "ready". Refuses where anything but loopback is up there: LSL's
    /// and Link's discovery must not leave the machine.
    public init(_ arguments: [String], network: LabNetwork, seconds: Double = 30, environment: [String: String] = [:],
                script: String = LSLPeer.script) throws {
        let up = network.interfacesUp
        guard up == ["lo"] else {
            throw JSONFailure("refusing to start a peer in \(network.name): \(up) up, not loopback alone (its discovery would leave the machine)")
        }
        process = Process()
        Subprocess.keepForTheSuite(process)
        let command = network.command(Self.python, ["-W", "ignore", script] + arguments)
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError, process.standardInput) = (out, err, FileHandle.nullDevice)
        try Subprocess.launch(process)
        let (lines, errors) = (lines, errors)
        Thread {
            while case let data = out.fileHandleForReading.availableData, !data.isEmpty {
                lines.withLockedValue { $0 += String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init) }
            }
        }.start()
        Thread {
            while case let data = err.fileHandleForReading.availableData, !data.isEmpty {
                errors.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
        let deadline = Date().addingTimeInterval(seconds)
        while !lines.withLockedValue({ $0.contains("ready") }) {
            guard process.isRunning, Date() < deadline else {
                throw JSONFailure("the peer \(script) \(arguments.first ?? "") did not get ready: \(stderr)")
            }
            usleep(20_000)
        }
    }

    public var stderr: String { errors.withLockedValue { $0 } }

    /// Waits for the peer to end (up to `seconds`; then it is interrupted); whether it ended well.
    @discardableResult
    public func finish(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    public struct JSONFailure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// A JSON file the peer wrote.
    public static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
