import OSC
import ArgumentParser
import Inputs

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask a running `pulsejack run` how it is: server, DSP load, xruns, dropped and malformed messages, connections, meters.",
        discussion: "Sends /pulse/status to its OSC port and prints the reply, one `name: value` a line (or JSON).")

    @Option(name: .customLong("osc-port"), help: "The OSC port `pulsejack run` listens on.") var oscPort: UInt16 = 9000
    @Option(help: "Its address.") var host = "127.0.0.1"
    @Flag(help: "Print one JSON object.") var json = false

    func run() throws {
        let values: [(String, StatusValue)]
        do { values = try OSCStatusQuery.ask(host: host, port: oscPort) } catch { throw fail(error) }
        if json { print(try StatusValue.jsonObject(values)) } else { StatusValue.table(values).forEach { print($0) } }
    }
}
