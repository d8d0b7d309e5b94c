import Foundation
import TestSupport

/// Row 11, an ensemble across machines: NetJACK2 between three network namespaces on this
/// machine (`NetworkEnsemble`, as the test builds it), two slaves at network latency 2, 256-frame
/// periods, 60 s; then one slave's link cut for 5 s. Root only (namespaces): skipped, and said,
/// otherwise.
enum EnsembleBench {
    static func run(runs: Int) throws -> [BenchRow] {
        guard getuid() == 0, let ip = Subprocess.which("ip") else {
            FileHandle.standardError.write(Data("skipping the ensemble rows: network namespaces need root and iproute2's ip\n".utf8))
            return []
        }
        var scatters: [Int64] = [], latencies: Set<Int64> = [], reported: Set<Int> = [], rejoins: [Double] = []
        var coincide = 0, compared = 0, beats = 0
        for _ in 0..<max(1, min(runs, 3)) {
            let ensemble = try NetworkEnsemble(ip: ip)
            defer { ensemble.tearDown() }
            let report = try ensemble.play(seconds: 60, cut: 5)
            let window = report.firstCommonFrame..<report.cutFrame
            for slave in [report.alice, report.bob] {
                let trips = slave.gridBeats.filter(window.contains).map { beat in beat - (report.studioBeats.last { $0 <= beat } ?? beat) }
                guard let low = trips.min(), let high = trips.max() else { throw BenchFailure("\(slave.name): no grid beats came back") }
                scatters.append(high - low)
                latencies.insert(low)
                reported.insert(slave.reportedLatency)
                beats += trips.count
            }
            let alice = report.alice.gridBeats.filter(window.contains), bob = Set(report.bob.gridBeats.filter(window.contains))
            coincide += alice.filter(bob.contains).count
            compared += max(alice.count, bob.count)
            if let rejoin = report.rejoinSeconds { rejoins.append(rejoin) }
        }
        let latency = latencies.sorted().map { "\($0) frames (\($0 / Int64(NetworkEnsemble.period)) periods)" }.joined(separator: ", ")
        let command = "`sudo .build/release/pulsejack-bench --only ensemble` (root: network namespaces)"
        return [
            BenchRow(row: "11. Ensemble across machines",
                     measure: "NetJACK2 between 3 network namespaces (veth pairs, a bridge at the studio), 2 slaves at network latency 2, 256-frame period, 60 s at 100 BPM: each slave's shared-grid beat at the studio against the studio's own beat (\(beats) beats)",
                     pulsejack: "scatter \(scatters.max() ?? -1) frames; constant latency \(latency); the two slaves' grid beats coincide \(coincide) of \(compared)",
                     reference: "NetJACK2's reported latency of the slave's ports: \(reported.sorted().map(String.init).joined(separator: ", ")) frames (goal: 0 frames of scatter, latency = the reported one)",
                     command: command),
            BenchRow(row: "11. Ensemble across machines",
                     measure: "one slave's link (its veth) cut for 5 s while the other plays on: from the link's return to its first grid beat back on the studio's grid",
                     pulsejack: rejoins.isEmpty ? "never" : rejoins.map { String(format: "%.2f s", $0) }.joined(separator: ", "),
                     reference: "one bar at 100 BPM: 2.4 s",
                     command: command),
        ]
    }
}
