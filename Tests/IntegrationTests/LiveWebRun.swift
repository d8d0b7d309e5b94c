import OSC
import Inputs
import Foundation
import TestSupport
import Realtime

/// `pulsejack run --web ADDRESS` on a test server with a preset of the test's own: the page's
/// URL, port and token as it printed them, and its OSC port. Interrupted (SIGINT) on `stop`.
final class LiveWebRun {
    let url: String
    let port: Int
    let token: String?
    let osc: UInt16
    let client: String
    private let process: Process
    private let folder: URL
    private var relayProcess: Process?

    /// `arguments`: more options for `run` (a recording, …). `network`: run inside that namespace
    /// (an LSL run), the page reached through a relay on this side's loopback.
    init(preset: String, web: String, server: String, arguments: [String] = [], network: LabNetwork? = nil) throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("web").url
        try preset.write(to: folder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let pipe = Pipe(), output = LockedBox("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
        }
        osc = OSCEncoder.freePort()
        client = "pj-web-\(getpid())"
        process = try Subprocess.startPulsejack(["run", "--preset", folder.path, "--name", client, "--osc-port", "\(osc)", "--web", web]
                                                + arguments, server: server, output: pipe, network: network)
        for _ in 0..<100 {
            if let line = output.withLockedValue({ $0 }).split(separator: "\n").first(where: { $0.contains("the live page is at ") }),
               var components = URLComponents(string: String(line.split(separator: " ").last!)), let port = components.port {
                if let network {
                    let relay = try network.relay(port: port)
                    relayProcess = relay.process
                    components.port = relay.port
                }
                url = components.string ?? String(line.split(separator: " ").last!)
                self.port = components.port ?? port
                token = components.queryItems?.first { $0.name == "token" }?.value
                return
            }
            usleep(100_000)
        }
        process.interrupt()
        throw PlainHTTP.Failure(description: "no page URL printed: \(output.withLockedValue { $0 })")
    }

    var isRunning: Bool { process.isRunning }
    var processIdentifier: Int32 { process.processIdentifier }

    func stop() {
        if process.isRunning { process.interrupt(); process.waitUntilExit() }
        if let relayProcess, relayProcess.isRunning { relayProcess.terminate(); relayProcess.waitUntilExit() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The engine's `/pulse/status`, numbers only.
    func status() throws -> [String: Double] {
        try OSCStatusQuery.ask(host: "127.0.0.1", port: osc).reduce(into: [:]) { numbers, pair in
            switch pair.1 {
            case .int(let value): numbers[pair.0] = Double(value)
            case .float(let value): numbers[pair.0] = value
            case .text: break
            }
        }
    }
}
