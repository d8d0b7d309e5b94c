import Foundation
import Realtime
import TestSupport

/// Row 14, at rest: what a `pulsejack run` costs while it waits for the next beat, against jalv
/// hosting eg-amp, all on one dummy jackd at a 256-frame period and measured over the same
/// seconds: the whole process's CPU time per second of wall time (every thread's run time from
/// `/proc/PID/task/*/schedstat`) and its wake-ups per second (every thread's voluntary context
/// switches, from `/proc/PID/task/*/status`). pulsejack plays the click preset at 73 BPM with
/// OSC on; then with `--web` and no page, with one page, and with eight (WebSocket clients that
/// read every message, counting the meter frames). The pages open only after the processes at
/// rest were measured, so their work does not share the machine with that measure.
enum RestBench {
    static func run(runs: Int) throws -> [BenchRow] {
        var meterRates: [Double] = []
        let loads = try ProcessLoad.medians(of: 5) { order in
            let (loads, rates) = try measure(order: order, seconds: 10)
            meterRates += rates
            return loads
        }
        let rates = Statistics(meterRates)
        let ours = String(format: "the click preset, OSC on: %@; with --web, no page: %@; one page: %@; eight pages: %@ "
                          + "(meter frames per page: median %.1f/s, lowest %.1f/s)",
                          loads[1].text, loads[2].text, loads[3].text, loads[4].text, rates.median, rates.sorted.first ?? .nan)
        return [BenchRow(row: "14. At rest",
                         measure: "whole-process CPU time per second of wall time (every thread's schedstat) and wake-ups per second "
                             + "(voluntary context switches), one dummy jackd at 256 frames: every process over the same 10 s with no "
                             + "page open, then the page runs over the next 10 s with their pages; "
                             + "median of 10 rounds in balanced orders: each process started in each place twice (see below)",
                         pulsejack: ours,
                         reference: "jalv 1.6.6 (console) hosting eg-amp on the same server: \(loads[0].text)",
                         command: ".build/release/pulsejack-bench --only rest")]
    }

    /// One round on a server of its own: jalv and the four pulsejack runs started in `order`
    /// (0 jalv, 1 the click run, 2 with --web, 3 with one page, 4 with eight); their loads by
    /// process (0–2 at rest, no page open; 3 and 4 over the next seconds, their pages open), and
    /// each page's meter frames a second.
    static func measure(order: [Int], seconds: Double) throws -> ([ProcessLoad], [Double]) {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pulsejack").path
        let click = BenchFixtures.repository.appendingPathComponent("presets/click").path
        let jalvInput = Pipe()  // open for the run: jalv's console quits at the end of its input
        var runs: [Process?] = Array(repeating: nil, count: 5)
        var pagePorts: [Int: Int] = [:]
        defer { for case let process? in runs where process.isRunning { process.interrupt(); process.waitUntilExit() } }
        for index in order {
            if index == 0 {
                runs[0] = try start("/usr/bin/jalv", ["-x", "-n", "jalv-amp", "http://lv2plug.in/plugins/eg-amp"], input: jalvInput)
            } else {
                let output = Pipe()
                var arguments = ["run", "--preset", click, "--bpm", "73", "--name", "pj-rest-\(index)", "--osc-port", "\(OSCEncoder.freePort())"]
                if index >= 2 { arguments += ["--web", "127.0.0.1:0"] }
                runs[index] = try start(tool, arguments, output: output)
                if index >= 2 { pagePorts[index] = try pagePort(output) }
            }
            // Joined before the next starts: the start order is the graph's order.
            let (client, port) = index == 0 ? ("jalv-amp", "out") : ("pj-rest-\(index)", "out_L")
            guard try Subprocess.waitForPorts(of: client, server: server.name, seconds: 20, port: port) else {
                throw BenchFailure("\(client) did not join \(server.name)")
            }
        }
        // First every process at rest, no page anywhere: the pages' own work would share the two
        // cores with what is measured.
        usleep(3_000_000)
        let pids = runs.map { $0!.processIdentifier }
        let resting = ProcessLoad.measure(pids, seconds: seconds)
        // Then one page on the fourth run, eight on the fifth, each reading everything.
        let reading = LockedBox(true)
        var counts: [LockedBox<Int>] = []
        for (port, pages) in [(pagePorts[3]!, 1), (pagePorts[4]!, 8)] {
            for _ in 0..<pages {
                let peer = try WebSocketPeer(port: port, path: "/ws")
                let count = LockedBox(0)
                counts.append(count)
                Thread {
                    while reading.withLockedValue({ $0 }), let text = try? peer.receiveText() {
                        if text.hasPrefix("{\"type\":\"meter\"") { count.withLockedValue { $0 += 1 } }
                    }
                }.start()
            }
        }
        defer { reading.withLockedValue { $0 = false } }
        usleep(3_000_000)
        let before = counts.map { $0.withLockedValue { $0 } }
        let watched = ProcessLoad.measure([pids[3], pids[4]], seconds: seconds)
        let loads = [resting[0], resting[1], resting[2], watched[0], watched[1]]
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
