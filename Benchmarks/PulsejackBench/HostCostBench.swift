import UserFiles
import Foundation
import Inputs
import Realtime
import Engine
import Plugins
import Presets

/// Row 9, what pulsejack itself adds to a period around a hosted plugin: the engine playing mda
/// EPiano from a pad, against the same plugin run bare (its MIDI added, its outputs connected,
/// run: what any host must do), both offline on this thread. Back to back, every period finds
/// its code and data in the caches; live, the process thread sleeps between JACK's cycles and
/// another process runs meanwhile, so each period starts cold. The second figure sleeps a
/// period before each: on this VM that triples the host's own cost, and it is that cost which
/// row 9's whole-process figures show against jalv. The third figure sleeps too, then runs a
/// twin engine (same preset, its own data) untimed just before: the code is warm, the data is
/// not, which splits the cold cost between the two.
enum HostCostBench {
    static let frames = 256
    static let periods = 3000

    static func run(runs: Int) throws -> [BenchRow] {
        let hot = try measure(sleeping: false)
        let cold = try measure(sleeping: true)
        let codeWarm = try measure(sleeping: true, warmingCode: true)
        func figures(_ measured: (engine: Double, bare: Double)) -> String {
            String(format: "%.0f ns (the engine's period %.0f ns, the bare plugin's %.0f ns)", measured.engine - measured.bare, measured.engine, measured.bare)
        }
        return [BenchRow(row: "9. Plugin hosting",
                         measure: "pulsejack's own cost in a sounding period: the engine playing mda EPiano from a pad (a note every 8 periods, held 4), 256 frames, offline, against the same plugin run bare (MIDI added, outputs connected, run), in turns on one thread; median of \(periods) periods each, back to back and each after sleeping a period (as the process thread does between JACK's cycles), and after the sleep with a twin engine run just before (its code warm, its data cold)",
                         pulsejack: "back to back: " + figures(hot) + "; after a sleep: " + figures(cold)
                            + "; after a sleep with the code warm: " + figures(codeWarm),
                         reference: "the bare plugin: what a minimal host such as jalv runs a period",
                         command: ".build/release/pulsejack-bench --only host")]
    }

    /// The preset both measures play: mda EPiano on notes from a pad, each held 4 periods.
    static func pianoPreset() throws -> String {
        let path = BenchFixtures.folder.appendingPathComponent("host-cost-piano.yaml").path
        try """
        name: host-cost-piano
        voices:
          - name: piano
            kind: lv2
            plugin: \(PluginBench.epiano)
            on_beat: false
            midi_note: 60
            length: \(4.0 * Double(frames) / 48_000)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Median nanoseconds per period of the engine and of the bare plugin, in turns.
    /// `warmingCode`: a twin engine runs a period untimed before each engine's and each bare
    /// plugin's period (the same code, its own data).
    static func measure(sleeping: Bool, warmingCode: Bool = false) throws -> (engine: Double, bare: Double) {
        let path = try pianoPreset()
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: try LoadedPreset.load(path: path), sampleRate: 48_000, maxFrames: frames) { $0.sources = [ring] }
        engine.warmUp()
        let twin = try EngineGraph.build(preset: try LoadedPreset.load(path: path), sampleRate: 48_000, maxFrames: frames) { _ in }
        twin.warmUp()
        let twinOutput = FixedBuffer<Float>(capacity: 2 * frames, repeating: 0)
        // The twin plays the same notes, so the plugin's sounding code is the code it warms.
        func runTwin(noteOn: Bool, noteOff: Bool) {
            guard warmingCode else { return }
            if noteOn { twin.receiveMIDI(status: 0x90, key: 60, value: 100, offset: 0) }
            if noteOff { twin.receiveMIDI(status: 0x80, key: 60, value: 0, offset: 0) }
            twin.process(frames: frames, left: twinOutput.pointer, right: twinOutput.pointer + frames)
        }
        let builder = PluginBuilder(sampleRate: 48_000, maxFrames: frames, offline: false, stateFolder: nil)
        let bare = try builder.instance(PluginBench.epiano, controls: [:], key: "bare") { path, message in
            InputError(file: "bench", field: path, message)
        }
        let output = FixedBuffer<Float>(capacity: 4 * frames, repeating: 0)
        let left = output.pointer, right = output.pointer + frames
        let bareLeft = output.pointer + 2 * frames, bareRight = output.pointer + 3 * frames
        var engineTimes: [UInt64] = [], bareTimes: [UInt64] = []
        engineTimes.reserveCapacity(periods)
        bareTimes.reserveCapacity(periods)
        let warmUp = 200
        var enginePeak: Float = 0, barePeak: Float = 0
        for period in 0..<(warmUp + periods) {
            let noteOn = period % 8 == 0, noteOff = period % 8 == 4
            if sleeping { usleep(5333) }
            runTwin(noteOn: noteOn, noteOff: noteOff)
            var start = DispatchTime.now().uptimeNanoseconds
            if noteOn { engine.receiveMIDI(status: 0x90, key: 60, value: 100, offset: 0) }
            if noteOff { engine.receiveMIDI(status: 0x80, key: 60, value: 0, offset: 0) }
            engine.process(frames: frames, left: left, right: right)
            let engineTime = DispatchTime.now().uptimeNanoseconds - start
            if sleeping { usleep(5333) }
            runTwin(noteOn: false, noteOff: false)
            start = DispatchTime.now().uptimeNanoseconds
            if noteOn { _ = bare.addMIDI(frame: 0, (0x90, 60, 100)) }
            if noteOff { _ = bare.addMIDI(frame: 0, (0x80, 60, 0)) }
            bare.connect(port: bare.audioOutputs[0], to: bareLeft)
            bare.connect(port: bare.audioOutputs[1], to: bareRight)
            bare.run(frames: frames)
            let bareTime = DispatchTime.now().uptimeNanoseconds - start
            enginePeak = max(enginePeak, abs(left[frames / 2]))
            barePeak = max(barePeak, abs(bareLeft[frames / 2]))
            if period >= warmUp {
                engineTimes.append(engineTime)
                bareTimes.append(bareTime)
            }
        }
        guard enginePeak > 0.01, barePeak > 0.01 else {
            throw BenchFailure("the piano did not sound (engine peak \(enginePeak), bare \(barePeak)): nothing was measured")
        }
        return (Statistics(integers: engineTimes).median, Statistics(integers: bareTimes).median)
    }

    /// `--only footprint`, for `scripts/callgrind-footprint.sh`: the engine alone playing the same
    /// notes, 200 periods to warm up, then `periods` each after writing 96 MB (twice this
    /// machine's last-level cache), so every line the period touches comes from memory. Under
    /// callgrind's cache simulation the misses inside `footprintPeriod` are the lines a cold
    /// period fetches: a count that does not depend on the machine's load.
    static func footprint(periods: Int) throws {
        let path = try pianoPreset()
        let engine = try EngineGraph.build(preset: try LoadedPreset.load(path: path), sampleRate: 48_000, maxFrames: frames) { _ in }
        engine.warmUp()
        let output = FixedBuffer<Float>(capacity: 2 * frames, repeating: 0)
        let eviction = FixedBuffer<UInt8>(capacity: 96 << 20, repeating: 0)
        var peak: Float = 0
        for period in 0..<(200 + periods) {
            if period % 8 == 0 { engine.receiveMIDI(status: 0x90, key: 60, value: 100, offset: 0) }
            if period % 8 == 4 { engine.receiveMIDI(status: 0x80, key: 60, value: 0, offset: 0) }
            if period < 200 {
                engine.process(frames: frames, left: output.pointer, right: output.pointer + frames)
                continue
            }
            for line in stride(from: 0, to: eviction.count, by: 64) { eviction.pointer[line] &+= 1 }
            footprintPeriod(engine, output)
            peak = max(peak, abs(output.pointer[frames / 2]))
        }
        guard peak > 0.01 else { throw BenchFailure("the piano did not sound (peak \(peak)): nothing was measured") }
        print("footprint: \(periods) periods measured")
    }

    /// One measured period (callgrind collects inside this function only).
    @inline(never)
    static func footprintPeriod(_ engine: RealtimeEngine, _ output: borrowing FixedBuffer<Float>) {
        engine.process(frames: frames, left: output.pointer, right: output.pointer + frames)
    }
}
