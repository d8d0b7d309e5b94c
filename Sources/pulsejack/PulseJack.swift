import ArgumentParser
import Runs
import Renders
import Inputs
import Foundation

@main
struct PulseJack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pulsejack",
        abstract: "A real-time JACK audio engine that makes the body an instrument.",
        discussion: "Voices fire sample-accurately on the heartbeat; sensors reach the engine through lock-free rings.",
        version: Version.described,
        subcommands: [Run.self, Status.self, Sensors.self, LabStreams.self, Render.self, Voices.self, PresetList.self, Plugins.self, Library.self, Study.self,
                      Demo.self, PluginHost.self, CLAPDescribe.self, PoseCommand.self])

    /// `--start-server net` takes an optional value: it becomes the hidden `--start-net-server`.
    static func main() { main(StartServerArgument.rewriting(Array(CommandLine.arguments.dropFirst()))) }
}

/// Prints one clear line for an error (at most a few hundred characters) and exits non-zero.
func fail(_ message: Any) -> ExitCode {
    FileHandle.standardError.write(Data("pulsejack: error: \(LogLine.clipped("\(message)"))\n".utf8))
    return ExitCode(1)
}

/// An option's problem: a usage error (64, as argument-parser says it), or, when the machine
/// lacks what it needs (liblsl), that said and EX_UNAVAILABLE (69).
func refusal(_ problem: OptionProblem) -> Error {
    guard problem.unavailable else { return ValidationError("\(problem)") }
    FileHandle.standardError.write(Data("pulsejack: error: \(LogLine.clipped(problem.description))\n".utf8))
    return ExitCode(69)
}

/// Warnings of one kind at most once a second, each line clipped; the count of those held back
/// rides on the next one of the kind (and `reportHeldBackWarnings` says the rest at exit).
let warnings = WarningLimiter()

func warn(_ message: CustomStringConvertible) {
    guard let line = warnings.admit(message.description) else { return }
    FileHandle.standardError.write(Data("pulsejack: warning: \(line)\n".utf8))
}

/// A session's rejected entries: the first three, then how many more.
func warn(rejections: [HeartSession.Rejection], total: Int) {
    for line in HeartSession.Rejection.report(rejections, total: total) {
        FileHandle.standardError.write(Data("pulsejack: warning: \(line)\n".utf8))
    }
}

/// `value` as pretty JSON on standard output (`--json`).
func printJSON<Value: Encodable>(_ value: Value) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// At exit: how many warnings of each kind were held back since their last line.
func reportHeldBackWarnings() {
    for (kind, count) in warnings.heldBack() {
        FileHandle.standardError.write(Data("pulsejack: warning: \(count) more like '\(LogLine.clipped(kind, to: 60))' held back\n".utf8))
    }
}
