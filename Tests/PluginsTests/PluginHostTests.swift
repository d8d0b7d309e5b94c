import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Engine
@testable import Plugins
@testable import Presets

/// The plugin host against peers: an insert in pulsejack against `lv2apply` (lilv-utils) on the
/// same plugin, input and controls, sample by sample; instruments fired at exact frames.
final class PluginHostTests: XCTestCase {
    static let amp = "http://lv2plug.in/plugins/eg-amp"
    static let lowpass = "http://plugin.org.uk/swh-plugins/lowpass_iir"
    static let epiano = "http://drobilla.net/plugins/mda/EPiano"

    var folder: URL!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("plugins").url
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// A mono 32-bit float WAV of seeded noise, written here (not by pulsejack's writer).
    func writeNoise(frames: Int, name: String = "noise.wav") throws -> (path: String, samples: [Float]) {
        var random = SplitMix64(seed: 7)
        let samples = (0..<frames).map { _ in Float(Double(random.next() % 2_000_001) / 1_000_000 - 1) * 0.5 }
        var bytes: [UInt8] = []
        func u32(_ value: Int) { bytes += withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
        func u16(_ value: Int) { bytes += withUnsafeBytes(of: UInt16(value).littleEndian, Array.init) }
        bytes += Array("RIFF".utf8); u32(36 + 4 * frames); bytes += Array("WAVEfmt ".utf8)
        u32(16); u16(3); u16(1); u32(48_000); u32(48_000 * 4); u16(4); u16(32)
        bytes += Array("data".utf8); u32(4 * frames)
        for sample in samples { bytes += withUnsafeBytes(of: sample.bitPattern.littleEndian, Array.init) }
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, samples)
    }

    /// lv2apply's output for `input` through `uri` with `controls`, channel 0.
    func lv2apply(_ uri: String, input: String, controls: [String: Double]) throws -> [Float] {
        let output = folder.appendingPathComponent("ref-\(UUID().uuidString).wav").path
        var arguments = ["-i", input, "-o", output]
        for (symbol, value) in controls.sorted(by: { $0.key < $1.key }) { arguments += ["-c", symbol, String(value)] }
        let run = try Subprocess.run("/usr/bin/lv2apply", arguments + [uri])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try WavFile(path: output).channels[0]
    }

    /// An engine playing the noise once from frame 0 on a sample voice with `inserts`.
    func engine(inserts: String, period: Int, extra: String = "", sources: [SPSCRing<ControlMessage>] = [],
                wire: (inout EngineSetup) -> Void = { _ in }) throws -> RealtimeEngine {
        let preset = folder.appendingPathComponent("preset.yaml")
        try """
        name: insert test
        \(extra)
        voices:
          - name: noise
            kind: sample
            file: noise.wav
            on_beat: false
            inserts:
        \(inserts)
        """.write(to: preset, atomically: true, encoding: .utf8)
        try "voices:\n  - {name: tick, kind: click, gain: 0.5}\n".write(to: folder.appendingPathComponent("tick.yaml"), atomically: true, encoding: .utf8)
        return try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: period, offline: true) {
            $0.sources = sources
            wire(&$0)
        }
    }

    /// Runs `engine` for `frames` frames in periods of `period`, with `messages` due at their frames
    /// through `ring` (one of its sources).
    func render(_ engine: RealtimeEngine, ring: SPSCRing<ControlMessage>, frames: Int, period: Int,
                messages: [ControlMessage]) -> (left: [Float], right: [Float]) {
        XCTAssertTrue(ring.producer.push(ControlMessage(frame: 0, .voiceTrigger(voice: 0, velocity: 1))))
        for message in messages { XCTAssertTrue(ring.producer.push(message)) }
        return Fixtures.run(engine, sizes: [period], periods: (frames + period - 1) / period)
    }

    func maxDifference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Float {
        zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }

    func testAnInsertEqualsLv2applyWithItsControlChangedAtArbitraryFrames() throws {
        let frames = 12_000
        let noise = try writeNoise(frames: frames)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 256)
        let engine = try engine(inserts: "      - plugin: \(Self.amp)\n        controls: {gain: -6}", period: 1024, sources: [ring])
        let chain = try XCTUnwrap(engine.slots[0].inserts)
        let gainPort = try XCTUnwrap(chain.stages[0].plugin.controlPort("gain")).index
        // Changes at frames no period boundary shares: the run is split there.
        let changes: [(frame: Int, gain: Double)] = [(0, -6), (1_001, 3.5), (3_337, -20), (3_338, 0), (7_777, -90), (9_001, 6)]
        let messages = changes.dropFirst().map {
            ControlMessage(frame: Int64($0.frame), .insertControl(InsertAddress(chain: 0, stage: 0, port: gainPort), Float($0.gain)))
        }
        let output = render(engine, ring: ring, frames: frames, period: 1024, messages: messages)
        // eg-amp is stateless and unsmoothed, so lv2apply over each segment at its gain is the reference.
        var reference: [Float] = []
        for (index, change) in changes.enumerated() {
            let end = index + 1 < changes.count ? changes[index + 1].frame : frames
            let whole = try lv2apply(Self.amp, input: noise.path, controls: ["gain": change.gain])
            reference += whole[change.frame..<end]
        }
        XCTAssertEqual(reference.count, frames)
        XCTAssertLessThanOrEqual(maxDifference(output.left[0..<frames], reference[0..<frames]), 1e-6)
        XCTAssertLessThanOrEqual(maxDifference(output.right[0..<frames], reference[0..<frames]), 1e-6)
        // And it did change: the segment at −90 dB is all but silent, the one at +6 dB is not.
        XCTAssertLessThan(output.left[7_800..<9_000].map(abs).max()!, 1e-4)
        XCTAssertGreaterThan(output.left[9_100..<12_000].map(abs).max()!, 0.5)
    }

    /// A voice's own output (its port with `--outputs voices`, its stem) is the voice after its
    /// inserts: lv2apply's output for a stateful low-pass, while a click beside it has its own.
    func testAVoicesOwnOutputCarriesItsInsertsAndTheOutputsSumToTheMix() throws {
        let frames = 12_000, period = 256
        let noise = try writeNoise(frames: frames)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try engine(inserts: "      - plugin: \(Self.lowpass)\n        controls: {cutoff: 0.05, stages: 3}", period: period,
                                extra: "bpm: 240\ninclude: [tick.yaml]", sources: [ring]) { $0.outputs = .perVoice($0.voiceNames) }
        XCTAssertEqual(engine.handle.voiceNames, ["noise", "tick"])
        ring.producer.push(ControlMessage(frame: 0, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 240)))
        let mix = UnsafeMutablePointer<Float>.allocate(capacity: 2 * period)
        defer { mix.deallocate() }
        var own: [Float] = [], ticks = 0, largest: Float = 0
        for _ in 0..<frames / period {
            engine.process(frames: period, left: mix, right: mix + period)
            let noiseBus = engine.output(0), tickBus = engine.output(1)
            own += UnsafeBufferPointer(start: noiseBus.left, count: period)
            for frame in 0..<period {
                largest = max(largest, abs(noiseBus.left[frame] + tickBus.left[frame] - mix[frame]),
                              abs(noiseBus.right[frame] + tickBus.right[frame] - mix[period + frame]))
                if tickBus.left[frame] > 0.4 { ticks += 1 }
            }
        }
        let reference = try lv2apply(Self.lowpass, input: noise.path, controls: ["cutoff": 0.05, "stages": 3])
        let count = frames / period * period
        XCTAssertLessThanOrEqual(maxDifference(own[0..<count], reference[0..<count]), 1e-6)
        XCTAssertLessThanOrEqual(largest, 1e-6)
        XCTAssertGreaterThanOrEqual(ticks, 1, "the click has its own output")
    }

    func testOSCAndMIDIControllersMoveAnInsertControlAtTheirFrame() throws {
        let frames = 8_192
        let noise = try writeNoise(frames: frames)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try engine(inserts: "      - plugin: \(Self.amp)\n        controls: {gain: 0}", period: 256,
                                extra: "midi_cc: {21: noise.insert.1.gain, 22: noise.insert.1.bypass}", sources: [ring])
        let routes = OSCRoutes(voices: engine.handle.voiceNames, inserts: engine.handle.insertRoutes())
        XCTAssertEqual(routes.route(OSCMessage(address: "/voice/noise/insert/1/gain", arguments: [.float(99)])),
                       .badArguments("/voice/noise/insert/1/gain expects a value -90…24"), "eg-amp's range")
        XCTAssertEqual(routes.route(OSCMessage(address: "/voice/noise/insert/2/gain", arguments: [.float(1)])), .unknownAddress)
        guard case .events(let events) = routes.route(OSCMessage(address: "/voice/noise/insert/1/gain", arguments: [.float(-12)])) else {
            return XCTFail("the OSC address routes")
        }
        // OSC: −12 dB from frame 3000; MIDI CC 21 at 0 (→ −90 dB) in the period holding 5000, at
        // its offset; CC 22 at 127 (bypass) from 7000.
        let messages = events.map { ControlMessage(frame: 3_000, $0) }
        XCTAssertTrue(ring.producer.push(ControlMessage(frame: 0, .voiceTrigger(voice: 0, velocity: 1))))
        for message in messages { XCTAssertTrue(ring.producer.push(message)) }
        let output = Fixtures.run(engine, sizes: [256], periods: frames / 256) { start in
            if start <= 5_000 && 5_000 < start + 256 { engine.receiveMIDI(status: 0xB0, key: 21, value: 0, offset: 5_000 - Int(start)) }
            if start <= 7_000 && 7_000 < start + 256 { engine.receiveMIDI(status: 0xB0, key: 22, value: 127, offset: 7_000 - Int(start)) }
        }
        let gains: [(from: Int, to: Int, gain: Double)] = [(0, 3_000, 0), (3_000, 5_000, -12), (5_000, 7_000, -90)]
        for segment in gains {
            let reference = try lv2apply(Self.amp, input: noise.path, controls: ["gain": segment.gain])
            XCTAssertLessThanOrEqual(maxDifference(output.left[segment.from..<segment.to], reference[segment.from..<segment.to]), 1e-6,
                                     "\(segment.gain) dB from \(segment.from)")
        }
        // Bypassed: the noise itself.
        XCTAssertEqual(Array(output.left[7_000..<frames]), Array(noise.samples[7_000..<frames]))
    }

    /// An instrument engine: `plugin` as a `kind: lv2` voice fired only by triggers.
    func instrumentEngine(_ plugin: String, period: Int, offline: Bool, extra: String = "", sources: [SPSCRing<ControlMessage>] = []) throws -> RealtimeEngine {
        let preset = folder.appendingPathComponent("instrument.yaml")
        try """
        name: instrument test
        voices:
          - name: instrument
            kind: lv2
            plugin: \(plugin)
            on_beat: false
            length: 0.2
        \(extra)
        """.write(to: preset, atomically: true, encoding: .utf8)
        return try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: period,
                                     offline: offline) { $0.sources = sources }
    }

    func testTheSamplerLoadsItsDefaultStateAndPlaysItsClipFromTheNoteFrameOfflineAndLive() throws {
        let click = try WavFile(path: "/usr/lib/lv2/eg-sampler.lv2/click.wav").channels[0]
        for offline in [true, false] {
            let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
            let engine = try instrumentEngine("http://lv2plug.in/plugins/eg-sampler", period: 256, offline: offline, sources: [ring])
            XCTAssertTrue(engine.slots[0].voice is LV2InstrumentVoice)
            // Its LV2 log (C-variadic, through the instance's ring) reaches the control thread.
            XCTAssertTrue(engine.handle.drainPluginLogs().contains("instrument: trace: Loading /usr/lib/lv2/eg-sampler.lv2/click.wav"))
            XCTAssertEqual(engine.handle.drainPluginLogs(), [], "each line once")
            let notes: [Int64] = [1_000, 30_123]
            for frame in notes { XCTAssertTrue(ring.producer.push(ControlMessage(frame: frame, .voiceTrigger(voice: 0, velocity: 1)))) }
            let output = Fixtures.run(engine, sizes: [256], periods: 60_000 / 256) { _ in
                if !offline { usleep(1_000) }  // live: the worker thread answers between periods
            }
            for note in notes.map(Int.init) {
                XCTAssertEqual(output.left[note - 1], 0, "silent before the note (offline: \(offline))")
                // eg-sampler stops one frame short of its clip's end (its loop runs to n_frames − 1).
                let played = Array(output.left[note..<note + click.count - 1])
                let difference = zip(played, click).map { abs($0 - $1) }.max() ?? 1
                XCTAssertLessThanOrEqual(difference, 1e-6, "the bundle's click.wav from frame \(note) (offline: \(offline))")
            }
        }
    }

    /// A hosted instrument alone in a block renders straight into the output, its gains applied
    /// there; in a block where another voice was mixed first, or while its gain slews, it goes
    /// through its own bus. Both ways give the same samples: the sampler's click.wav times the
    /// pan law's gains (the reference), and with a click voice sounding alongside, exactly the
    /// sum of the two rendered apart.
    func testAnInstrumentStraightIntoTheOutputSoundsAsThroughItsBus() throws {
        let click = try WavFile(path: "/usr/lib/lv2/eg-sampler.lv2/click.wav").channels[0]
        let period = 256, frames = 12_288
        let instrument = "  - name: sampler\n    kind: lv2\n    plugin: http://lv2plug.in/plugins/eg-sampler\n" +
            "    on_beat: false\n    length: 0.2\n    gain: 0.5\n    pan: 0.25\n"
        let tick = "  - {name: tick, kind: click, on_beat: false, gain: 0.5, pan: -0.5}\n"
        func render(_ voices: String, _ triggers: [(frame: Int64, voice: Int32)], gainAt: Int64? = nil) throws -> (left: [Float], right: [Float]) {
            let preset = folder.appendingPathComponent("direct-\(UUID().uuidString).yaml")
            try ("name: direct\nvoices:\n" + voices).write(to: preset, atomically: true, encoding: .utf8)
            let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
            let engine = try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: period,
                                               offline: true) { $0.sources = [ring] }
            for trigger in triggers { XCTAssertTrue(ring.producer.push(ControlMessage(frame: trigger.frame, .voiceTrigger(voice: trigger.voice, velocity: 1)))) }
            if let gainAt { XCTAssertTrue(ring.producer.push(ControlMessage(frame: gainAt, .voiceParameter(voice: 0, .gain(1))))) }
            return Fixtures.run(engine, sizes: [period], periods: frames / period)
        }
        // Alone: every block straight into the output (two notes, the second across a block's end).
        let notes: [Int64] = [1_000, 5_000]
        let alone = try render(instrument, notes.map { ($0, 0) })
        var expected = [Float](repeating: 0, count: frames)
        for note in notes.map(Int.init) { for (index, sample) in click.dropLast().enumerated() { expected[note + index] += sample } }
        for frame in 0..<frames {
            XCTAssertEqual(alone.left[frame], expected[frame] * 0.5 * 0.75, accuracy: 1e-6, "left at \(frame)")
            XCTAssertEqual(alone.right[frame], expected[frame] * 0.5, accuracy: 1e-6, "right at \(frame)")
        }
        // With the click voice in the same blocks (mixed first: the instrument goes through its bus).
        let ticks: [(frame: Int64, voice: Int32)] = [(1_100, 1), (5_200, 1)]
        let both = try render(instrument + tick, notes.map { ($0, 0) } + ticks)
        let tickAlone = try render(tick + instrument, ticks.map { ($0.frame, 0) })
        for frame in 0..<frames {
            XCTAssertEqual(both.left[frame], alone.left[frame] + tickAlone.left[frame], accuracy: 1e-6, "left with the click at \(frame)")
            XCTAssertEqual(both.right[frame], alone.right[frame] + tickAlone.right[frame], accuracy: 1e-6, "right with the click at \(frame)")
        }
        XCTAssertGreaterThan(tickAlone.left[1_100..<1_400].map(abs).max()!, 0.01, "the click sounded where the instrument did")
        // The gain moved to 1 at a block's start during the second note: it slews there by 1/480
        // a frame (10 ms for full scale), in its bus, then plays straight into the output again.
        let change: Int64 = 5_120
        let slewed = try render(instrument, notes.map { ($0, 0) }, gainAt: change)
        var gain: Float = 0.5
        for frame in 0..<frames {
            if frame >= Int(change) { gain += min(max(1 - gain, -1 / Float(480)), 1 / Float(480)) }
            XCTAssertEqual(slewed.right[frame], expected[frame] * gain, accuracy: 1e-6, "right at \(frame), gain \(gain)")
        }
    }

    /// The quiet period (`RealtimeEngine.playQuietPeriod`): an engine whose one voice is mda
    /// EPiano, fired by triggers and (or not) by its heart at 73 BPM, with a gain change slewing,
    /// in periods of 256 and 100 frames and some longer than a block, renders sample for sample
    /// what the general path renders with it turned off, and its heart beats at the same frames.
    /// Most periods took it; those with something due (a note, a beat, the slew) or longer than a
    /// block did not.
    func testTheInstrumentsQuietPeriodSoundsAsTheGeneralPath() throws {
        // Every beat (0, 39452, 78904, 118356, 157808) falls in a period of at most a block.
        let sizes = [256, 100, 256, 256, 512], periods = 600
        let frames = periods / sizes.count * sizes.reduce(0, +), beats = Int((Double(frames - 1) / (60 * 48_000 / 73.0)).rounded(.down)) + 1
        for onBeat in [true, false] {
            let preset = folder.appendingPathComponent("quiet-\(onBeat).yaml")
            try """
            name: quiet
            voices:
              - name: piano
                kind: lv2
                plugin: http://drobilla.net/plugins/mda/EPiano
                on_beat: \(onBeat)
                length: 0.1
                gain: 0.8
            """.write(to: preset, atomically: true, encoding: .utf8)
            func render(quiet: Bool) throws -> (output: (left: [Float], right: [Float]), beatFrames: [Int64], quietPeriods: Int) {
                let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
                let observations = SPSCRing<EngineObservation>(minimumCapacity: 64)
                let engine = try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: 256,
                                                   offline: true) { $0.sources = [ring]; $0.observations = observations }
                XCTAssertTrue(engine.playsQuietPeriods, "one hosted instrument qualifies")
                engine.playsQuietPeriods = quiet
                // 1635: the last frame of a 256-frame period.
                for frame in [1_635, 3_000, 20_017, 45_500] as [Int64] {
                    XCTAssertTrue(ring.producer.push(ControlMessage(frame: frame, .voiceTrigger(voice: 0, velocity: 0.7))))
                }
                XCTAssertTrue(ring.producer.push(ControlMessage(frame: 30_000, .voiceParameter(voice: 0, .gain(0.3)))))
                XCTAssertTrue(ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 73))))
                var beatFrames: [Int64] = []
                func drain() { while let observation = observations.consumer.pop() { if observation.kind == .beat { beatFrames.append(observation.frame) } } }
                let output = Fixtures.run(engine, sizes: sizes, periods: periods) { _ in drain() }
                drain()
                XCTAssertEqual(engine.handle.counters.value(.voicesFired), 4 + (onBeat ? beats : 0),
                               "four triggers, and a note on each beat from frame 0 when on the beat")
                return (output, beatFrames, engine.quietPeriods)
            }
            let quiet = try render(quiet: true), general = try render(quiet: false)
            XCTAssertGreaterThan(general.output.left.map(abs).max()!, 0.05, "the piano sounded")
            XCTAssertEqual(general.beatFrames.count, beats, "every beat observed")
            XCTAssertEqual(quiet.beatFrames, general.beatFrames, "the heart beats at the same frames (on the beat: \(onBeat))")
            XCTAssertEqual(general.quietPeriods, 0)
            XCTAssertGreaterThan(quiet.quietPeriods, periods / 2, "most periods are quiet")
            XCTAssertLessThan(quiet.quietPeriods, periods * 4 / 5, "a period longer than a block (a fifth of them), or with a note or a beat due, is not")
            XCTAssertEqual(quiet.output.left.count, general.output.left.count)
            let quietSamples = quiet.output.left + quiet.output.right, generalSamples = general.output.left + general.output.right
            XCTAssertNil(quietSamples.indices.first { quietSamples[$0] != generalSamples[$0] },
                         "the first sample that differs (on the beat: \(onBeat))")
        }
    }

    /// avldrums loads its kit through the worker: at once inside the run offline (deterministic),
    /// on the worker thread live. A note a second later sounds the same both ways.
    func testAVLDrumsLoadsItsKitThroughTheWorkerAndPlays() throws {
        var renders: [[Float]] = []
        for offline in [true, false] {
            let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
            let engine = try instrumentEngine("http://gareus.org/oss/lv2/avldrums#BlackPearl", period: 256, offline: offline, sources: [ring])
            let voice = try XCTUnwrap(engine.slots[0].voice as? LV2InstrumentVoice)
            let output = Fixtures.run(engine, sizes: [256], periods: 96_000 / 256) { start in
                if !offline { usleep(2_000) }
                if start == 48_000 / 256 * 256 { ring.producer.push(ControlMessage(frame: 50_000, .voiceTrigger(voice: 0, velocity: 1))) }
            }
            XCTAssertGreaterThanOrEqual(voice.plugin.workerRequests, 1, "the kit loads through the worker (offline: \(offline))")
            XCTAssertLessThan(output.left[..<50_000].map(abs).max()!, 1e-5, "silent before the note")
            XCTAssertGreaterThan(output.left[50_000..<60_000].map(abs).max()!, 0.1, "the drum sounds (offline: \(offline))")
            renders.append(output.left)
        }
        let difference = zip(renders[0], renders[1]).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(difference, 1e-6, "the same samples offline and live")
    }

    /// Two clicks on every beat, one straight to the left, one to the right through x42's
    /// nodelay (1000 frames): reported and compensated it lands on the beat; unreported, late.
    func testAHeartbeatVoiceThroughALatentInsertLandsOnTheBeatFrame() throws {
        for (mode, late) in [(1, 0), (0, 1_000)] {
            let preset = folder.appendingPathComponent("latency-\(mode).yaml")
            try """
            name: latency
            voices:
              - name: straight
                kind: click
                pan: -1
              - name: delayed
                kind: click
                pan: 1
                inserts:
                  - plugin: http://gareus.org/oss/lv2/nodelay
                    controls: {delay: 1000, report_latency: \(mode)}
            """.write(to: preset, atomically: true, encoding: .utf8)
            // nodelay glides to its delay at start (and reports the delay it has): the heart
            // starts half a second in, by when it reports 1000.
            let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
            let engine = try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: 256,
                                               offline: true) { $0.sources = [ring] }
            XCTAssertTrue(ring.producer.push(ControlMessage(frame: 24_000, .tempo(bpm: 97))))
            let output = Fixtures.run(engine, sizes: [256], periods: 48_000 * 6 / 256)
            XCTAssertEqual(engine.handle.publishedLatency.load(ordering: .relaxed), mode == 1 ? 1_000 : 0, "the path's latency")
            let straight = WavFile.onsets(output.left), delayed = WavFile.onsets(output.right)
            XCTAssertGreaterThanOrEqual(straight.count, 9, "beats played")
            // Compensated, every beat lands on the straight click's frame but the first: the tempo
            // that starts the heart arrives with it, so nothing could send it early.
            let expected = mode == 1 ? [straight[0] + 1_000] + straight.dropFirst() : straight.map { $0 + late }
            XCTAssertEqual(delayed, expected.filter { $0 < output.right.count }, "report_latency \(mode)")
            XCTAssertEqual(straight.first, 24_000, "the straight click is on the contract's first beat")
        }
    }

    /// A session save writes each plugin's state (port values moved live, the plugin's own
    /// state: eg-sampler's sample) in the session folder; the saved preset, rendered, plays
    /// what the live engine plays.
    func testASavedSessionRestoresThePluginsAndRendersTheSameSound() throws {
        _ = try writeNoise(frames: 9_600)
        let preset = folder.appendingPathComponent("live.yaml")
        try """
        name: session with plugins
        voices:
          - name: noise
            kind: sample
            file: noise.wav
            on_beat: false
            inserts:
              - plugin: \(Self.amp)
                controls: {gain: 0}
          - name: sampler
            kind: lv2
            plugin: http://lv2plug.in/plugins/eg-sampler
            on_beat: false
        """.write(to: preset, atomically: true, encoding: .utf8)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let live = try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: 256, offline: true) { $0.sources = [ring] }
        let gainPort = try XCTUnwrap(live.slots[0].inserts?.stages[0].plugin.controlPort("gain")).index
        ring.producer.push(ControlMessage(frame: 100, .insertControl(InsertAddress(chain: 0, stage: 0, port: gainPort), -12)))
        _ = Fixtures.run(live, sizes: [256], periods: 4)

        let session = folder.appendingPathComponent("session")
        try FileManager.default.createDirectory(at: session, withIntermediateDirectories: true)
        let states = live.handle.voiceStates(live: false)
        let plugins = try live.handle.savePluginStates(into: session.appendingPathComponent("plugins").path)
        try LoadedPreset.load(path: preset.path).save(to: session.appendingPathComponent("preset.yaml").path, bpm: nil,
                                                      states: states, plugins: plugins)
        let samplerState = try String(contentsOf: session.appendingPathComponent("plugins/sampler/1/state.ttl"), encoding: .utf8)
        XCTAssertTrue(samplerState.contains("click.wav"), "eg-sampler's own state names its sample: \(samplerState)")
        let ampState = try String(contentsOf: session.appendingPathComponent("plugins/noise.insert1/1/state.ttl"), encoding: .utf8)
        XCTAssertTrue(ampState.contains("-12"), "the gain moved live is in the state: \(ampState)")
        let savedYAML = try String(contentsOf: session.appendingPathComponent("preset.yaml"), encoding: .utf8)
        XCTAssertTrue(savedYAML.contains("gain: -12"), savedYAML)
        XCTAssertTrue(savedYAML.contains("state: plugins/noise.insert1\n"), "relative to the session: \(savedYAML)")

        // The same notes into the live engine and into one built from the saved session.
        let restoredNotes = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let restored = try EngineGraph.build(preset: LoadedPreset.load(path: session.path), sampleRate: 48_000, maxFrames: 256,
                                             offline: true) { $0.sources = [restoredNotes] }
        var outputs: [[Float]] = []
        for (engine, notes) in [(live, ring), (restored, restoredNotes)] {
            let start = engine.framePosition + 256
            notes.producer.push(ControlMessage(frame: start, .voiceTrigger(voice: 0, velocity: 1)))
            notes.producer.push(ControlMessage(frame: start + 5_000, .voiceTrigger(voice: 1, velocity: 1)))
            outputs.append(Fixtures.run(engine, sizes: [256], periods: 60).left)
        }
        XCTAssertGreaterThan(outputs[1].map(abs).max()!, 0.1, "it plays")
        XCTAssertLessThanOrEqual(zip(outputs[0], outputs[1]).map { abs($0 - $1) }.max()!, 1e-6, "the saved session sounds as the live one")
    }

    /// A control change splits a plugin's run at its frame, except for a plugin that declares
    /// `bufsz:coarseBlockLength` (x42's nodelay does), whose change applies at the block's start.
    func testACoarseBlockPluginIsNotSplitForAControlChange() throws {
        _ = try writeNoise(frames: 2_048)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try engine(inserts: """
              - plugin: http://gareus.org/oss/lv2/nodelay
                controls: {delay: 0, report_latency: 3}
              - plugin: \(Self.amp)
        """, period: 256, sources: [ring])
        let chain = try XCTUnwrap(engine.slots[0].inserts)
        let (coarse, fine) = (chain.stages[0].plugin, chain.stages[1].plugin)
        XCTAssertEqual([coarse.coarseBlockLength, fine.coarseBlockLength], [true, false], "what the plugins declare")
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        let before = (coarse.runs, fine.runs)
        let delay = try XCTUnwrap(coarse.controlPort("delay")).index, gain = try XCTUnwrap(fine.controlPort("gain")).index
        ring.producer.push(ControlMessage(frame: 300, .insertControl(InsertAddress(chain: 0, stage: 0, port: delay), 10)))
        ring.producer.push(ControlMessage(frame: 300, .insertControl(InsertAddress(chain: 0, stage: 1, port: gain), -6)))
        _ = Fixtures.run(engine, sizes: [256], periods: 2)
        XCTAssertEqual(coarse.runs - before.0, 2, "nodelay: one run a block, the change at the block's start")
        XCTAssertEqual(fine.runs - before.1, 3, "eg-amp: split at frame 300")
        XCTAssertEqual([coarse.control(delay), fine.control(gain)], [10, -6])
    }

    /// A saved state loaded live (`/voice/<name>/insert/<n>/state s FOLDER`): new instances are
    /// built and restored off the process thread, swapped in at their frame, and the old ones come
    /// back to be freed there.
    func testAStateLoadedLiveSwapsTheInsertAtItsFrameAndFreesTheOldOne() throws {
        let frames = 12_288
        let noise = try writeNoise(frames: frames)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try engine(inserts: "      - plugin: \(Self.amp)\n        controls: {gain: 0}", period: 256, sources: [ring])
        let routes = OSCRoutes(voices: engine.handle.voiceNames, inserts: engine.handle.insertRoutes())
        XCTAssertEqual(routes.route(OSCMessage(address: "/voice/noise/insert/1/state", arguments: [.string("/somewhere")])),
                       .request(.loadInsertState(place: "noise", insert: 1, folder: "/somewhere")))
        // A state with the gain at −20 dB, saved as a session save does.
        let chain = try XCTUnwrap(engine.slots[0].inserts)
        let gain = try XCTUnwrap(chain.stages[0].plugin.controlPort("gain")).index
        ring.producer.push(ControlMessage(.insertControl(InsertAddress(chain: 0, stage: 0, port: gain), -20)))
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        _ = engine.handle.voiceStates(live: false)
        let saved = try engine.handle.savePluginStates(into: folder.appendingPathComponent("states").path)
        ring.producer.push(ControlMessage(.insertControl(InsertAddress(chain: 0, stage: 0, port: gain), 0)))
        _ = Fixtures.run(engine, sizes: [256], periods: 1)

        weak let old = chain.stages[0].plugin
        let start = engine.framePosition
        ring.producer.push(ControlMessage(frame: start, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(try engine.handle.insertStateMessage(place: "noise", insert: 1, state: try XCTUnwrap(saved["noise.insert1"]).state,
                                                         frame: start + 5_000))
        let output = Fixtures.run(engine, sizes: [256], periods: frames / 256)
        let at0 = try lv2apply(Self.amp, input: noise.path, controls: ["gain": 0])
        let at20 = try lv2apply(Self.amp, input: noise.path, controls: ["gain": -20])
        XCTAssertLessThanOrEqual(maxDifference(output.left[0..<5_000], at0[0..<5_000]), 1e-6, "the old instances until the frame")
        XCTAssertLessThanOrEqual(maxDifference(output.left[5_000..<frames], at20[5_000..<frames]), 1e-6, "the loaded state from it")
        XCTAssertNotNil(old, "the replaced instances are still alive: handed back, not freed on the process thread")
        let retired = engine.handle.retiredClips.consumer
        var handedBack = 0
        while let object = retired.pop() { object.release(); handedBack += 1 }
        XCTAssertEqual(handedBack, 1)
        XCTAssertNil(old, "freed on the control thread")
    }

    func testAStatefulInsertSplitAtControlFramesEqualsOneUnsplitLv2applyRun() throws {
        let frames = 12_000
        let noise = try writeNoise(frames: frames)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 256)
        let engine = try engine(inserts: "      - plugin: \(Self.lowpass)\n        controls: {cutoff: 0.05, stages: 3}", period: 512,
                                sources: [ring])
        let chain = try XCTUnwrap(engine.slots[0].inserts)
        XCTAssertEqual(chain.stages[0].layout, .dualMono, "a mono plugin runs once per channel")
        let cutoffPort = try XCTUnwrap(chain.stages[0].plugin.controlPort("cutoff")).index
        // The same value at odd frames: every one splits the filter's run, which must not show.
        let messages = [17, 513, 600, 2_047, 5_555, 5_556, 9_999].map {
            ControlMessage(frame: $0, .insertControl(InsertAddress(chain: 0, stage: 0, port: cutoffPort), 0.05))
        }
        let output = render(engine, ring: ring, frames: frames, period: 512, messages: messages)
        let reference = try lv2apply(Self.lowpass, input: noise.path, controls: ["cutoff": 0.05, "stages": 3])
        XCTAssertLessThanOrEqual(maxDifference(output.left[0..<frames], reference[0..<frames]), 1e-6)
        XCTAssertLessThanOrEqual(maxDifference(output.right[0..<frames], reference[0..<frames]), 1e-6)
        // The filter filtered: its output differs from the noise.
        XCTAssertGreaterThan(maxDifference(output.left[0..<frames], noise.samples[0..<frames]), 0.1)
    }

    /// Two bundles made from eg-amp under new URIs: one requires a feature nobody offers, one
        // has a plugin file that is not Turtle.
    func makeBadBundles() throws {
        let amp = "/usr/lib/lv2/eg-amp.lv2"
        for (name, uri) in [("telepathic", "http://example.org/pulsejack-test/telepathic-amp"),
                            ("broken", "http://example.org/pulsejack-test/broken-amp")] {
            let bundle = folder.appendingPathComponent("bundles/\(name).lv2")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "\(amp)/amp.so", toPath: bundle.appendingPathComponent("amp.so").path)
            let manifest = try String(contentsOfFile: "\(amp)/manifest.ttl", encoding: .utf8)
                .replacingOccurrences(of: "http://lv2plug.in/plugins/eg-amp", with: uri)
            try manifest.write(to: bundle.appendingPathComponent("manifest.ttl"), atomically: true, encoding: .utf8)
            var plugin = try String(contentsOfFile: "\(amp)/amp.ttl", encoding: .utf8)
                .replacingOccurrences(of: "http://lv2plug.in/plugins/eg-amp", with: uri)
            if name == "telepathic" {
                plugin = plugin.replacingOccurrences(of: "lv2:optionalFeature lv2:hardRTCapable ;",
                                                     with: "lv2:optionalFeature lv2:hardRTCapable ;\n\tlv2:requiredFeature <http://example.org/ns#telepathy> ;")
                XCTAssertTrue(plugin.contains("telepathy"), "the feature went in")
            } else {
                plugin = "@prefix lv2: <http://lv2plug.in/ns/lv2core#> .\n<\(uri)> a lv2:Plugin ; lv2:port [ a lv2:AudioPort ;;; broken\n"
            }
            try plugin.write(to: bundle.appendingPathComponent("amp.ttl"), atomically: true, encoding: .utf8)
        }
    }

    /// Bad plugin input: one line naming the preset file and line, and no engine.
    func testEachBadPluginIsOneLineNamingThePresetLineAndNothingRenders() throws {
        try Subprocess.requirePulsejack()
        try makeBadBundles()
        let cases: [(plugin: String, controls: String, line: Int, says: String)] = [
            ("http://drobilla.net/plugins/mda/EPianoo", "{}", 5,
             "no LV2 plugin http://drobilla.net/plugins/mda/EPianoo; the closest installed: http://drobilla.net/plugins/mda/EPiano"),
            ("http://example.org/pulsejack-test/telepathic-amp", "{}", 5, "requires http://example.org/ns#telepathy, which pulsejack does not offer"),
            ("http://drobilla.net/plugins/mda/EPiano", "{hardnes: 0.5}", 6, "has no control 'hardnes'"),
            ("http://drobilla.net/plugins/mda/EPiano", "{hardness: 7}", 6, "control 'hardness' takes 0…1, not 7"),
            ("http://example.org/pulsejack-test/broken-amp", "{}", 5, "is not a valid plugin description"),
        ]
        let session = folder.appendingPathComponent("session.csv")
        try "time,bpm\n0,80\n5,80\n".write(to: session, atomically: true, encoding: .utf8)
        for (number, bad) in cases.enumerated() {
            let preset = folder.appendingPathComponent("preset-\(number).yaml")
            try """
            name: bad plugin
            voices:
              - name: keys
                kind: lv2
                plugin: \(bad.plugin)
                controls: \(bad.controls)
            """.write(to: preset, atomically: true, encoding: .utf8)
            let out = folder.appendingPathComponent("out-\(number).wav")
            let run = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", preset.path, "--session", session.path,
                                                                 "--out", out.path],
                                         environment: ["LV2_PATH": "\(folder.path)/bundles:/usr/lib/lv2"])
            XCTAssertNotEqual(run.status, 0, bad.says)
            let lines = run.stderr.split(separator: "\n").filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, 1, "one line: \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("\(preset.path):\(bad.line):"), "file and line: \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(bad.says), "\(bad.says) in: \(run.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing rendered")
        }
    }
}
