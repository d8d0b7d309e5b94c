import Inputs
import Foundation
import Realtime
import Presets
import SoundFiles

/// Row 5: CPU per second of audio for convolving with a 4 s and a 10 s stereo clip at a 64-frame
/// period. The peer, jconvolver (zita-convolver's JACK client), runs against a private jackd.
enum ConvolutionBench {
    /// A decaying stereo noise clip, reproducible (SplitMix64).
    static func clip(seconds: Int) throws -> String {
        let path = BenchFixtures.folder.appendingPathComponent("clip-\(seconds)s.wav").path
        let frames = seconds * 48_000
        var generator = SplitMix64(seed: 42)
        func noise() -> Float { Float(Double(generator.next()) / Double(UInt64.max) * 2 - 1) }
        let decay = (0..<frames).map { Float(exp(-5 * Double($0) / Double(frames))) * 0.1 }
        let left = decay.map { $0 * noise() }, right = decay.map { $0 * noise() }
        let writer = try WavWriter(path: path, sampleRate: 48_000)
        try writer.write(left: left, right: right, frames: frames)
        writer.close()
        return path
    }

    /// CPU seconds (all threads) per second of audio of a jconvolver convolving `clip` in stereo.
    static func jconvolver(clip: String, seconds: Double) throws -> Double {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/jconvolver") else {
            throw BenchFailure("jconvolver is not installed (make bench installs it)")
        }
        let server = try PrivateJackServer(periodFrames: 64)
        defer { server.stop() }
        let config = BenchFixtures.folder.appendingPathComponent("jconvolver.conf").path
        try """
        /convolver/new 2 2 64 480000 1
        /input/name 1 in_L
        /input/name 2 in_R
        /output/name 1 out_L
        /output/name 2 out_R
        /impulse/read 1 1 1 0 0 0 1 \(clip)
        /impulse/read 2 2 1 0 0 0 2 \(clip)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jconvolver")
        process.arguments = ["-s", server.name, config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        usleep(1_500_000)  // loading and partitioning the clip is not the cost we measure
        let before = try cpuSeconds(pid: process.processIdentifier)
        let started = Date()
        usleep(UInt32(seconds * 1_000_000))
        let after = try cpuSeconds(pid: process.processIdentifier)
        return (after - before) / Date().timeIntervalSince(started)
    }

    /// utime + stime of a process, all its threads, from /proc.
    static func cpuSeconds(pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw BenchFailure("cannot read /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields after the command: state is index 0, so utime (14th field) is index 11, stime index 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchFailure("cannot parse /proc/\(pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds of this process (every thread, zita's workers included).
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU per second of audio for our convolution voice on `clip`, 64-frame blocks: the sparse
    /// path fed a lub-dub heartbeat at 72 BPM, or the dense path fed noise.
    static func ours(clip: String, dense: Bool, seconds: Int = 30) throws -> Double {
        let path = BenchFixtures.folder.appendingPathComponent("conv-\(dense).yaml").path
        try "name: conv\nvoices:\n  - {name: conv, kind: convolution, file: \(clip), input: \(dense), shape: lub-dub}\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: LoadedPreset.load(path: path), sampleRate: 48_000, maxFrames: 64, offline: true) { $0.sources = [ring] }
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 72)))
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 64), right = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { left.deallocate(); right.deallocate(); input.deallocate() }
        for frame in 0..<64 { input[frame] = Float(frame * 7919 % 64) / 32 - 1 }
        // Warm up past the clip's length, so every copy or partition is busy when measured.
        for _ in 0..<(48_000 * 11 / 64) { engine.process(frames: 64, left: left, right: right, inputLeft: input, inputRight: input) }
        let before = processCPU()
        for _ in 0..<(48_000 * seconds / 64) { engine.process(frames: 64, left: left, right: right, inputLeft: input, inputRight: input) }
        return (processCPU() - before) / Double(seconds)
    }

    static func run(runs: Int) throws -> [BenchRow] {
        var ourCells: [String] = [], peerCells: [String] = []
        for seconds in [4, 10] {
            let path = try clip(seconds: seconds)
            let sparse = try medianOfRuns(runs) { try ours(clip: path, dense: false) }
            let dense = try medianOfRuns(runs) { try ours(clip: path, dense: true) }
            let peer = try medianOfRuns(runs) { try jconvolver(clip: path, seconds: 5) }
            ourCells.append(String(format: "%d s clip: sparse %.2f %%, dense %.1f %% of a core", seconds, sparse * 100, dense * 100))
            peerCells.append(String(format: "%d s clip: jconvolver %.1f %%", seconds, peer * 100))
        }
        return [BenchRow(row: "5. Convolution",
                         measure: "CPU per second of audio, stereo clip, 64-frame period (all threads); sparse: lub-dub heartbeat at 72 BPM",
                         pulsejack: ourCells.joined(separator: "; "),
                         reference: peerCells.joined(separator: "; "),
                         command: ".build/release/pulsejack-bench --only convolution")]
    }
}
