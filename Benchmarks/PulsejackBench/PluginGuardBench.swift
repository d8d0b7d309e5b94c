import UserFiles
import Foundation
import Inputs
import Plugins
import Presets

/// Row 9, a plugin's protection: what a guard costs a plugin each period (its clock reads, the
/// scan of its output, the period's figures), and what isolation costs (the plugin in a child
/// process driven through shared memory) against the same plugin in process, at 64 and 256 frames.
enum PluginGuardBench {
    static let plugin = "http://lv2plug.in/plugins/eg-amp"

    static func run(runs: Int) throws -> [BenchRow] {
        var guardCost: [String] = [], isolation: [String] = []
        for frames in [64, 256] {
            guardCost.append(String(format: "%d frames: %.0f ns", frames, guardNanoseconds(frames: frames)))
            let inProcess = try periodMicroseconds(frames: frames, isolate: false)
            let isolated = try periodMicroseconds(frames: frames, isolate: true)
            isolation.append(String(format: "%d frames: %.1f µs / %.1f µs (in process %.2f µs / %.2f µs)", frames, isolated.median, isolated.p99,
                                    inProcess.median, inProcess.p99))
        }
        return [
            BenchRow(row: "9. Plugin hosting",
                     measure: "a plugin's guard per period: two clock reads, the scan of its stereo output for NaN, Inf and subnormals, the period's figures (mean of 200000 periods)",
                     pulsejack: guardCost.joined(separator: "; "),
                     reference: "the period: 64 frames = 1333 µs, 256 frames = 5333 µs",
                     command: ".build/release/pulsejack-bench --only guards"),
            BenchRow(row: "9. Plugin hosting",
                     measure: "an isolated insert (lv2's eg-amp in a `pulsejack plugin-host` child, shared memory, futex handshake) per period, median / p99 of 20000 periods",
                     pulsejack: isolation.joined(separator: "; "),
                     reference: "the same plugin in process (in brackets); the deadline a child has: half a period (667 µs at 64 frames)",
                     command: ".build/release/pulsejack-bench --only guards"),
        ]
    }

    /// Mean nanoseconds of one period's guard work on a stereo output of `frames` frames.
    static func guardNanoseconds(frames: Int) -> Double {
        let watch = PluginGuard()
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        for frame in 0..<frames {
            left[frame] = sin(Float(frame) * 0.01)
            right[frame] = cos(Float(frame) * 0.01)
        }
        let periods = 200_000
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<periods {
            watch.startRun()
            watch.endRun(left, right, frames: frames)
            watch.closePeriod(budgetNanoseconds: 1_000_000_000)
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(periods)
    }

    /// One insert chain of the plugin, run period after period on a stereo bus: each period's
    /// time in microseconds (median, p99).
    static func periodMicroseconds(frames: Int, isolate: Bool) throws -> (median: Double, p99: Double) {
        let builder = PluginBuilder(sampleRate: 48_000, maxFrames: frames, offline: false, stateFolder: nil)
        guard let chain = try builder.chain([.init(plugin: plugin, controls: ["gain": -3], isolate: isolate)], fail: { path, message in
            InputError(file: "bench", field: path, message)
        }) else { throw BenchFailure("no chain") }
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        var times: [Double] = []
        times.reserveCapacity(20_000)
        for period in 0..<21_000 {
            for frame in 0..<frames {
                left[frame] = sin(Float(period * frames + frame) * 0.01)
                right[frame] = left[frame]
            }
            let start = DispatchTime.now().uptimeNanoseconds
            chain.process(left: left, right: right, frames: frames)
            chain.closePeriod(budgetNanoseconds: 0)
            // The first 1000 periods warm up (the child's first runs, the caches).
            if period >= 1000 { times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000) }
        }
        if isolate, let isolation = chain.stages[0].instances[0].isolation, isolation.restarts.load(ordering: .relaxed) > 0 {
            throw BenchFailure("the isolated plugin's process failed during the bench")
        }
        let statistics = Statistics(times)
        return (statistics.median, statistics.percentile(99))
    }
}
