import Foundation
import Plugins
import UserFiles

/// Row 20: a CLAP plugin's host cost beside its LV2 build. zam-plugins ships each plugin in both
/// formats from the same DSP code (DPF), so the difference between the two builds' time per
/// 256-frame run is the two hosts' (and the two DPF wrappers') difference, not the DSP's.
enum CLAPHostBench {
    static let command = ".build/release/pulsejack-bench --only clap"
    static let plugins = ["ZamEQ2", "ZamDelay", "ZamGate"]

    static func run(runs: Int) throws -> [BenchRow] {
        var cells: [String] = [], references: [String] = []
        for name in plugins {
            let (lv2, clap) = try compare(name, rounds: 5 * max(1, min(runs, 3)))
            cells.append(String(format: "%@ %.0f ns", name, clap))
            references.append(String(format: "%@ %.0f ns", name, lv2))
        }
        return [BenchRow(row: "20. CLAP hosting",
                         measure: "one 256-frame run of a zam plugin on noise, in process (CLAP: a moved parameter as an event at its frame, 1 parameter moved every 8th run; LV2: the same control moved, ports connected), median ns of 20000 runs a round, the rounds alternating the builds, median of the rounds",
                         pulsejack: "CLAP: " + cells.joined(separator: ", "),
                         reference: "its LV2 build in pulsejack: " + references.joined(separator: ", "), command: command)]
    }

    /// Median ns per run of the LV2 build and of the CLAP build, rounds alternating.
    static func compare(_ name: String, rounds: Int) throws -> (lv2: Double, clap: Double) {
        let builder = PluginBuilder(sampleRate: 48_000, maxFrames: 256, offline: false, stateFolder: nil)
        func make(_ uri: String) throws -> PluginInstance {
            try builder.instance(uri, controls: [:], key: "bench") { path, message in InputError(file: "bench", field: path, message) }
        }
        let lv2 = try make("urn:zamaudio:\(name)"), clap = try make("clap:com.zamaudio.\(name)")
        var lv2Medians: [Double] = [], clapMedians: [Double] = []
        for _ in 0..<rounds {
            lv2Medians.append(measure(lv2))
            clapMedians.append(measure(clap))
        }
        return (Statistics(lv2Medians).median, Statistics(clapMedians).median)
    }

    /// Median ns of 20000 runs on noise, the first input control moved every 8th run.
    static func measure(_ plugin: PluginInstance) -> Double {
        let buffers = (0..<4).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 256) }
        defer { buffers.forEach { $0.deallocate() } }
        var seed: UInt64 = 7
        for frame in 0..<256 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            buffers[0][frame] = Float(Int64(bitPattern: seed >> 11) % 1000) / 2000
            buffers[1][frame] = buffers[0][frame]
        }
        for (slot, port) in plugin.audioInputs.prefix(2).enumerated() { plugin.connect(port: port, to: buffers[slot]) }
        for (slot, port) in plugin.audioOutputs.prefix(2).enumerated() { plugin.connect(port: port, to: buffers[2 + slot]) }
        let control = plugin.ports.first { $0.kind == .control && $0.isInput && !$0.isToggled && !$0.isInteger }
        var times: [Double] = []
        times.reserveCapacity(20_000)
        for index in 0..<20_000 {
            if let control, index % 8 == 0 {
                let share = Float(index % 64) / 64
                plugin.queueControl(control.index, control.minimum + (control.maximum - control.minimum) * share, atFrame: 100)
            }
            let start = DispatchTime.now().uptimeNanoseconds
            plugin.run(frames: 256)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start))
        }
        return Statistics(times).median
    }
}
