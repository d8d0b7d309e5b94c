import Inputs
import Foundation
import JackPeers
import Realtime
import Engine
import JackBackend
import Presets

/// Row 3: time per period on JACK's process thread as a fraction of the period, in freewheel,
/// with N sample voices always sounding; and the largest polyphony under half the period.
enum CallbackCostBench {
    static let periodsPerRun = 10_000

    struct Cost {
        var median, p999, max: Double  // fractions of the period
    }

    static func measure(server: PrivateJackServer, voices: Int) throws -> Cost {
        try measure(server: server, preset: BenchFixtures.sampleVoices(voices))
    }

    /// With `studio`, everything a studio run adds on the process thread is on: MIDI out to a
    /// listening port, the meters, a recording (to a temporary file) and the timebase. With
    /// `outputs`, the ports per voice or group and per voice MIDI that it names (`run --outputs`).
    static func measure(server: PrivateJackServer, preset: LoadedPreset, studio: Bool = false,
                        outputs: OutputLayout = .masterOnly) throws -> Cost {
        let client = try JackClient(name: "pulsejack")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: preset, sampleRate: client.sampleRate, maxFrames: client.bufferSize) {
            $0.sources = [ring]
            if outputs.addsPorts { $0.outputs = outputs }
            $0.sendsGrid = studio
        }
        ring.producer.push(ControlMessage(.tempo(bpm: 60)))
        let timings = SPSCRing<UInt64>(minimumCapacity: 1 << 15)
        var options = JackClient.Options()
        options.periodTimings = timings
        options.outputs = outputs
        let recording = NSTemporaryDirectory() + "pulsejack-bench-\(getpid()).wav"
        defer { unlink(recording) }
        if studio {
            options.meter = OutputMeter()
            options.recorder = try OutputRecorder(path: recording, sampleRate: client.sampleRate, maxFrames: client.bufferSize)
            options.recorder?.start()
            options.timebase = .takeOver
        }
        try client.activate(engine: engine, options: options)
        defer { _ = try? options.recorder?.finish() }
        // A DAW's MIDI input listening to midi_out (not our own midi_in: that would be a loop).
        let daw = studio ? try MidiCapture(name: "daw") : nil
        defer { daw?.close() }
        try daw?.connect(from: "\(client.name):midi_out")
        let consumer = timings.consumer
        // Let every voice start sounding (the first beat), then measure in freewheel.
        usleep(100_000)
        while consumer.pop() != nil {}
        client.setFreewheel(true)
        var nanoseconds: [UInt64] = []
        nanoseconds.reserveCapacity(periodsPerRun)
        while nanoseconds.count < periodsPerRun {
            if let value = consumer.pop() { nanoseconds.append(value) } else { usleep(500) }
        }
        client.setFreewheel(false)
        client.deactivate()
        client.close()
        let period = Double(client.bufferSize) / Double(client.sampleRate) * 1e9
        let stats = Statistics(integers: nanoseconds)
        return Cost(median: stats.median / period, p999: stats.percentile(99.9) / period, max: stats.max / period)
    }

    /// Direct calls on this thread (no server): p99.9 of the period at `voices` voices, the median
    /// of three runs of 4,900 periods (one run's p99.9 is its 5th-worst period, which a single
    /// preemption on a shared two-core machine can set).
    static func directP999(voices: Int, periodFrames: Int) throws -> Double {
        Statistics(try (0..<3).map { _ in try directP999Once(voices: voices, periodFrames: periodFrames) }).median
    }

    private static func directP999Once(voices: Int, periodFrames: Int) throws -> Double {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: BenchFixtures.sampleVoices(voices), sampleRate: 48_000, maxFrames: periodFrames) { $0.sources = [ring] }
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 60)))
        let left = UnsafeMutablePointer<Float>.allocate(capacity: periodFrames)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: periodFrames)
        defer { left.deallocate(); right.deallocate() }
        var nanoseconds: [UInt64] = []
        for index in 0..<5_000 {
            let started = DispatchTime.now().uptimeNanoseconds
            engine.process(frames: periodFrames, left: left, right: right)
            if index >= 100 { nanoseconds.append(DispatchTime.now().uptimeNanoseconds - started) }
        }
        let period = Double(periodFrames) / 48_000 * 1e9
        return Statistics(integers: nanoseconds).percentile(99.9) / period
    }

    /// The largest voice count whose p99.9 stays under half the period (doubling, then bisecting).
    static func largestPolyphony(periodFrames: Int) throws -> Int {
        var low = 1, high = 256
        while try directP999(voices: high, periodFrames: periodFrames) < 0.5 {
            low = high
            high *= 2
            if high > 16_384 { return low }
        }
        while high - low > max(1, low / 16) {
            let middle = (low + high) / 2
            if try directP999(voices: middle, periodFrames: periodFrames) < 0.5 { low = middle } else { high = middle }
        }
        return low
    }

    static func percent(_ fraction: Double) -> String { String(format: "%.2f %%", fraction * 100) }

    static func run(runs: Int) throws -> [BenchRow] {
        var rows: [BenchRow] = []
        for periodFrames in [64, 256] {
            let server = try PrivateJackServer(periodFrames: periodFrames)
            var cells: [String] = []
            for voices in [1, 16, 64, 256] {
                var costs: [Cost] = []
                for _ in 0..<runs { costs.append(try measure(server: server, voices: voices)) }
                let median = Statistics(costs.map(\.median)).median
                let p999 = Statistics(costs.map(\.p999)).median
                let worst = Statistics(costs.map(\.max)).median
                cells.append("\(voices) voice\(voices == 1 ? "" : "s"): \(percent(median)) / \(percent(p999)) / \(percent(worst))")
            }
            server.stop()
            let largest = try largestPolyphony(periodFrames: periodFrames)
            rows.append(BenchRow(
                row: "3. Process-callback cost",
                measure: "\(periodFrames)-frame period, median / p99.9 / max of \(periodsPerRun) periods (freewheel)",
                pulsejack: cells.joined(separator: "; ") + "; largest polyphony under 50 % (p99.9): \(largest) voices",
                reference: "the period itself (100 %) and the 50 % budget",
                command: ".build/release/pulsejack-bench --only cost"))
        }
        for studio in [false, true] {
            var cells: [String] = []
            for periodFrames in [64, 256] {
                let server = try PrivateJackServer(periodFrames: periodFrames)
                var costs: [Cost] = []
                for _ in 0..<runs { costs.append(try measure(server: server, preset: try BenchFixtures.shipped("pulsonify"), studio: studio)) }
                server.stop()
                cells.append("\(periodFrames) frames: \(percent(Statistics(costs.map(\.median)).median)) / "
                    + "\(percent(Statistics(costs.map(\.p999)).median)) / \(percent(Statistics(costs.map(\.max)).median))")
            }
            rows.append(BenchRow(row: "3. Process-callback cost",
                                 measure: "PulSonify preset (arpeggio, percussion, tap routine, uke convolution)"
                                    + (studio ? " with MIDI out to a listening client, meters, a recording and the timebase" : "") + ", median / p99.9 / max",
                                 pulsejack: cells.joined(separator: "; "), reference: "the period itself (100 %) and the 50 % budget",
                                 command: ".build/release/pulsejack-bench --only cost"))
        }
        return rows
    }
}
