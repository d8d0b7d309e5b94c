import ArgumentParser
import Foundation
import LSL
import Renders

struct LabStreams: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsl",
        abstract: "List the Lab Streaming Layer streams on the network: what --heart lsl:NAME, --eeg lsl:NAME, --lsl-markers NAME and lsl.STREAM.CHANNEL read.",
        discussion: "Each stream's name, type, channels (with their labels), rate and host, as its outlet describes it. Needs liblsl (make deps).")

    @Option(help: "Seconds to wait for streams to answer (0.2…60).") var wait: Double = 2

    func validate() throws {
        guard wait.isFinite, (0.2...60).contains(wait) else { throw ValidationError("--wait \(wait) is outside 0.2…60 s") }
    }

    func run() throws {
        let streams: [LSLStreamInfo]
        do { streams = try LSLStreamScan.run(seconds: wait) } catch { throw refusal(OptionProblem("\(error)", unavailable: true)) }
        if streams.isEmpty { print("pulsejack: no LSL streams answered in \(String(format: "%g", wait)) s") }
        streams.forEach { print(LSLStreamScan.listing($0)) }
    }
}
