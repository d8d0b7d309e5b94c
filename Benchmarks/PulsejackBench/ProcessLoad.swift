import Foundation

/// What processes sharing one JACK server cost, measured over the same seconds: each one's CPU
/// time per second of wall time (every thread's run time from `/proc/PID/task/*/schedstat`) and
/// its wake-ups per second (every thread's voluntary context switches, from its `status`).
///
/// Where a client sits in the server's graph moves its cost more than what it computes: jackd2
/// wakes clients that share no connection one after another, in the order they joined, and on
/// this 2-core machine every client after the first is woken on the other core from its last
/// and migrates nearly every period (cold caches, a cross-core wake-up). Measured with jalv and
/// pulsejack's click run alone on one server, 8 s each way: the first to join 1.3–1.7 ms/s with
/// about 10 migrations, the second 2.3–2.7 ms/s with about 1400. Which client runs just before
/// another counts too. So every comparison here starts its processes in balanced orders
/// (`orders`) and reports each one's median over them.
struct ProcessLoad {
    var milliseconds: Double
    var wakeups: Double
    var text: String { String(format: "%.2f ms/s, %.0f wake-ups/s", milliseconds, wakeups) }

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
    static func measure(_ pids: [Int32], seconds: Double) -> [ProcessLoad] {
        let before = pids.map(sample)
        usleep(UInt32(seconds * 1_000_000))
        let after = pids.map(sample)
        return zip(before, after).map { ProcessLoad(milliseconds: ($1.nanoseconds - $0.nanoseconds) / 1e6 / seconds,
                                                    wakeups: ($1.switches - $0.switches) / seconds) }
    }

    /// The orders `count` processes start in, one round each: a Williams design, in which every
    /// process starts in every place equally often and follows every other process equally often
    /// (the one woken just before it shares its core and caches). `count` rounds for an even
    /// count, twice as many for an odd one (each order also reversed).
    static func orders(_ count: Int) -> [[Int]] {
        // First order 0, 1, n−1, 2, n−2, …; the others add 1, 2, … to it (mod n).
        var first = [0], low = 1, high = count - 1
        while first.count < count {
            first.append(low)
            low += 1
            if first.count < count {
                first.append(high)
                high -= 1
            }
        }
        let square = (0..<count).map { shift in first.map { ($0 + shift) % count } }
        return count % 2 == 0 ? square : square + square.map { Array($0.reversed()) }
    }

    /// Runs `round` once per order of `orders` — given the order to start the processes in, it
    /// returns their loads by process (not by order) — and gives each process's median over the
    /// rounds.
    static func medians(of count: Int, _ round: (_ order: [Int]) throws -> [ProcessLoad]) rethrows -> [ProcessLoad] {
        let rounds = try orders(count).map { order in
            let loads = try round(order)
            // Each round on standard error: the spread behind the medians.
            let figures = loads.map { String(format: "%.2f", $0.milliseconds) }.joined(separator: " ")
            FileHandle.standardError.write(Data("  order \(order): ms/s by process \(figures)\n".utf8))
            return loads
        }
        return (0..<count).map { index in
            ProcessLoad(milliseconds: Statistics(rounds.map { $0[index].milliseconds }).median,
                        wakeups: Statistics(rounds.map { $0[index].wakeups }).median)
        }
    }
}
