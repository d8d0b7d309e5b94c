import Foundation
import Realtime
import TestSupport

/// Row 14, at rest: what a `pulsejack run` costs while it waits for the next beat, against jalv
/// hosting eg-amp, all on one dummy jackd at a 256-frame period and measured over the same
/// seconds: the whole process's CPU time per second of wall time (every thread's run time from
/// `/proc/PID/task/*/schedstat`) and its wake-ups per second (every thread's voluntary context
/// switches, from `/proc/PID/task/*/status`). pulsejack plays the click preset at 73 BPM with
/// OSC on; then with `--web` and no page, with one page, and with eight (WebSocket clients that
/// read every message, counting the meter frames).
enum RestBench {
    struct Load {
        var milliseconds: Double
        var wakeups: Double
        var text: String { String(format: "%.2f ms/s, %.0f wake-ups/s", milliseconds, wakeups) }
    }

    /// One process's threads: run time (ns) and voluntary switches, summed.
    static func sample(_ pid: Int32) -> (nanoseconds: Double, switches: Double) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var nanoseconds = 0.0, switches = 0.0
        for task in tasks {
            if let schedstat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
               let ran = Double(schedstat.split(separator: " ").first ?? "") { nanoseconds += ran }
            if let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
               let count = Double(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") { switches += count }
        }
        return (nanoseconds, switches)
    }

    /// Each process's load over `seconds`, sampled at the same moments.
    static func load(of pids: [Int32], seconds: Double) -> [Load] {
        let before = pids.map(sample)
        usleep(UInt32(seconds * 1_000_000))
        let after = pids.map(sample)
        return zip(before, after).map { Load(milliseconds: ($1.nanoseconds - $0.nanoseconds) / 1e6 / seconds,
                                             wakeups: ($1.switches - $0.switches) / seconds) }
    }

    static func run(runs: Int) throws -> [BenchRow] {
        var figures: [[Load]] = []
        var meterRates: [Double] = []
        for _ in 0..<max(1, runs) {
            let (loads, rates) = try measure(seconds: 10)
            figures.append(loads)
            meterRates += rates
        }
        func median(_ index: Int) -> Load {
            let loads = figures.map { $0[index] }
            return Load(milliseconds: Statistics(loads.map(\.milliseconds)).median, wakeups: Statistics(loads.map(\.wakeups)).median)
        }
        let rates = Statistics(meterRates)
        let ours = String(format: "the click preset, OSC on: %@; with --web, no page: %@; one page: %@; eight pages: %@ "
                          + "(meter frames per page: median %.1f/s, lowest %.1f/s)",
                          median(1).text, median(2).text, median(3).text, median(4).text, rates.median, rates.sorted.first ?? .nan)
        return [BenchRow(row: "14. At rest",
                         measure: "whole-process CPU time per second of wall time (every thread's schedstat) and wake-ups per second "
                             + "(voluntary context switches), one dummy jackd at 256 frames, all measured over the same 10 s (median of \(max(1, runs)))",
                         pulsejack: ours,
                         reference: "jalv 1.6.6 (console) hosting eg-amp on the same server: \(median(0).text)",
                         command: ".build/release/pulsejack-bench --only rest")]
    }

    /// jalv, then the four pulsejack runs; their loads and each page's meter frames a second.
    static func measure(seconds: Double) throws -> ([Load], [Double]) {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pulsejack").path
        let click = BenchFixtures.repository.appendingPathComponent("presets/click").path
        let jalvInput = Pipe()  // open for the run: jalv's console quits at the end of its input
        let jalv = try start("/usr/bin/jalv", ["-x", "-n", "jalv-amp", "http://lv2plug.in/plugins/eg-amp"], input: jalvInput)
        var runs = [jalv]
        var pagePorts: [Int] = []
        for (index, web) in [false, true, true, true].enumerated() {
            let output = Pipe()
            var arguments = ["run", "--preset", click, "--bpm", "73", "--name", "pj-rest-\(index)", "--osc-port", "\(OSCEncoder.freePort())"]
            if web { arguments += ["--web", "127.0.0.1:0"] }
            runs.append(try start(tool, arguments, output: output))
            if web { pagePorts.append(try pagePort(output)) }
        }
        defer { for process in runs where process.isRunning { process.interrupt(); process.waitUntilExit() } }
        // One page on the second web run, eight on the third, each reading everything.
        let reading = LockedBox(true)
        var counts: [LockedBox<Int>] = []
        var readers: [Thread] = []
        for (port, pages) in [(pagePorts[1], 1), (pagePorts[2], 8)] {
            for _ in 0..<pages {
                let peer = try WebSocketPeer(port: port, path: "/ws")
                let count = LockedBox(0)
                counts.append(count)
                let reader = Thread {
                    while reading.withLockedValue({ $0 }), let text = try? peer.receiveText() {
                        if text.hasPrefix("{\"type\":\"meter\"") { count.withLockedValue { $0 += 1 } }
                    }
                }
                reader.start()
                readers.append(reader)
            }
        }
        defer { reading.withLockedValue { $0 = false } }
        usleep(3_000_000)
        let before = counts.map { $0.withLockedValue { $0 } }
        let loads = load(of: runs.map(\.processIdentifier), seconds: seconds)
        let rates = zip(counts, before).map { Double($0.withLockedValue { $0 } - $1) / seconds }
        return (loads, rates)
    }

    /// The page's port, from the run's "the live page is at http://127.0.0.1:PORT/" line.
    private static func pagePort(_ output: Pipe) throws -> Int {
        var seen = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            seen += String(decoding: data, as: UTF8.self)
            if let range = seen.range(of: "the live page is at http://127.0.0.1:"),
               let port = Int(seen[range.upperBound...].prefix { $0.isNumber }) { return port }
        }
        throw BenchFailure("no page address in: \(seen)")
    }

    private static func start(_ tool: String, _ arguments: [String], input: Pipe? = nil, output: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let input { process.standardInput = input }
        try process.run()
        return process
    }
}
