import Foundation
import JackBackend

// pulsejack-bench: measures the engine beside its peers and writes BENCHMARKS.md.
// Usage: pulsejack-bench [--runs N] [--only precision|latency|osc|cost|voices|ring|convolution|render|scsynth|plugins|guards|host|footprint|web|rest|ensemble|daw|sensors|modulation|lsl|pose|tempo|install|safety] [--safety-seconds S] [--out FILE]
var runs = 5
var only: String?
var safetySeconds = 60.0
var out = BenchFixtures.repository.appendingPathComponent("BENCHMARKS.md").path
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs": runs = Int(arguments.popFirst() ?? "") ?? runs
    case "--only": only = arguments.popFirst()
    case "--safety-seconds": safetySeconds = Double(arguments.popFirst() ?? "") ?? safetySeconds
    case "--out": out = arguments.popFirst() ?? out
    default:
        FileHandle.standardError.write(Data("usage: pulsejack-bench [--runs N] [--only precision|latency|osc|cost|voices|ring|convolution|render|scsynth|plugins|guards|host|footprint|web|rest|ensemble|daw|sensors|modulation|lsl|pose|tempo|install|safety] [--safety-seconds S] [--out FILE]\n".utf8))
        exit(64)
    }
}

JackClient.silenceLibraryMessages()
if only == "footprint" {
    // Not a section of its own: its figure comes from callgrind (scripts/callgrind-footprint.sh).
    do { try HostCostBench.footprint(periods: Int(ProcessInfo.processInfo.environment["FOOTPRINT_PERIODS"] ?? "") ?? 64) } catch {
        FileHandle.standardError.write(Data("pulsejack-bench: footprint: \(error)\n".utf8))
        exit(1)
    }
    BenchFixtures.cleanUp()
    exit(0)
}
let sections: [(String, () throws -> [BenchRow])] = [
    ("precision", { try PrecisionBench.run(runs: runs) }),
    ("latency", { try LatencyBench.run(runs: runs) }),
    ("osc", { try OSCLatencyBench.run(runs: runs) }),
    ("cost", { try CallbackCostBench.run(runs: runs) }),
    ("voices", { try VoiceCostBench.run(runs: runs) }),
    ("ring", { RingBench.run(runs: runs) }),
    ("convolution", { try ConvolutionBench.run(runs: runs) }),
    ("render", { try RenderBench.run(runs: runs) }),
    ("scsynth", { try ScsynthBench.run(runs: runs) }),
    ("plugins", { try PluginBench.run(runs: runs) }),
    ("guards", { try PluginGuardBench.run(runs: runs) }),
    ("host", { try HostCostBench.run(runs: runs) }),
    ("web", { try WebBench.run(runs: runs) }),
    ("rest", { try RestBench.run(runs: runs) }),
    ("ensemble", { try EnsembleBench.run(runs: runs) }),
    ("daw", { try DAWRoutingBench.run(runs: runs) }),
    ("sensors", { try SensorBench.run(runs: runs) }),
    ("modulation", { try ModulationBench.run(runs: runs) }),
    ("lsl", { try LabStreamsBench.run(runs: runs) }),
    ("pose", { try PoseBench.run(runs: runs) }),
    ("tempo", { try TempoSyncBench.run(runs: runs) }),
    ("clap", { try CLAPHostBench.run(runs: runs) }),
    ("install", { try InstallSizeBench.run(runs: runs) }),
    ("safety", { try SafetyBench.run(seconds: safetySeconds) }),
]
var rows: [BenchRow] = []
for (name, section) in sections where only == nil || only == name {
    FileHandle.standardError.write(Data("measuring \(name)…\n".utf8))
    do {
        let measured = try section()
        for row in measured { print("\(row.row) | \(row.measure) | \(row.pulsejack) | \(row.reference)") }
        rows += measured
    } catch {
        FileHandle.standardError.write(Data("pulsejack-bench: \(name): \(error)\n".utf8))
        exit(1)
    }
}
BenchFixtures.cleanUp()
if let only {
    // One section: its rows in an existing BENCHMARKS.md are replaced in place.
    if let existing = try? String(contentsOfFile: out, encoding: .utf8) {
        try Report.replacingSection(only, rows: rows, in: existing).write(toFile: out, atomically: true, encoding: .utf8)
        print("updated the \(only) rows of \(out)")
    }
} else {
    // Rows other tools write (the reliability row of `make soak`, callgrind's counts and footprint) stay.
    let kept = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").components(separatedBy: "\n")
        .filter { $0.hasSuffix("`make soak` |") || $0.hasSuffix("`scripts/callgrind-render.sh` |") || $0.hasSuffix("`scripts/callgrind-footprint.sh` |") }
    try Report.markdown(rows: rows, runs: runs, keeping: kept).write(toFile: out, atomically: true, encoding: .utf8)
    print("wrote \(out)")
}
