import UserFiles
import CAllocCounter
import Inputs
import Foundation
import JackPeers
import TestSupport
import Voices
import EngineFixtures
import XCTest
import Realtime
import Sensors
@testable import Engine
@testable import JackBackend
@testable import Plugins
import Pose
@testable import Presets
@testable import SoundFiles

/// A voice that breaks the rules on purpose: the positive control proving the counter sees
/// allocations on the process thread.
final class AllocatingVoice: Voice {
    private(set) var garbage: [Float] = []
    func prepare(sampleRate: Int, maxFrames: Int) {}
    func trigger(atFrame offset: Int, velocity: Float) {}
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        garbage = [Float](repeating: Float(frames), count: frames + 1)
    }
    func silence() {}
}

/// A voice that reads, as it renders in a period (not the engine's warm-up on the control
/// thread), whether its thread could be cancelled there (its cancellation state, set and put back
/// at once).
final class CancellationProbeVoice: Voice, @unchecked Sendable {
    private let counts = UnsafeMutablePointer<Int>.allocate(capacity: 2)
    init() { counts.initialize(repeating: 0, count: 2) }
    deinit { counts.deallocate() }
    /// (renders, renders with cancellation enabled); read once the thread has stopped.
    var seen: (renders: Int, cancellable: Int) { (counts[0], counts[1]) }
    func prepare(sampleRate: Int, maxFrames: Int) {}
    func trigger(atFrame offset: Int, velocity: Float) {}
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        guard ProcessThread.isCurrent else { return }
        var state: Int32 = 0
        pthread_setcancelstate(Int32(PTHREAD_CANCEL_DISABLE), &state)
        pthread_setcancelstate(state, nil)
        counts[0] += 1
        if state == Int32(PTHREAD_CANCEL_ENABLE) { counts[1] += 1 }
    }
    func silence() {}
}

final class RealtimeSafetyTests: XCTestCase {
    /// The allocation counter and ThreadSanitizer cannot share a process: `make test-tsan` builds
    /// the counter out, and these tests run in the plain `make test`.
    override func setUpWithError() throws {
        if pj_alloc_counter_live() == 0 {
            throw XCTSkip("the allocation counter is left out under ThreadSanitizer; `make test` runs these")
        }
    }

    /// Every voice kind, all firing fast: the default preset's samples, a click, with the
    /// heartbeat at 300 BPM in quarters and explicit beats, triggers and parameter changes.
    /// `ring` is the engine's source; `wire` adds to its setup.
    private func busyEngine(sampleRate: Int, maxFrames: Int, extra: [VoiceSlot] = [], ring: SPSCRing<ControlMessage>,
                            rebuilding: EngineHandle? = nil, wire: (inout EngineSetup) -> Void = { _ in }) throws -> RealtimeEngine {
        setenv("CLAP_PATH", try MisbehavingPlugins.clapFolder(), 1)
        let preset = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("default").path)
        var slots: [VoiceSlot] = []
        for voice in preset.voices where voice.definition.kind == .sample {
            let sample = try SampleFile.load(path: voice.sounds[0].path, sampleRate: sampleRate)
            slots.append(VoiceSlot(name: voice.definition.name, voice: SampleVoice(sample: sample), enabled: true, gain: 0.5, pan: 0,
                                   rate: BeatRate(subdivision: 4), followsHeart: true, silenced: false))
        }
        slots.append(VoiceSlot(name: "click", voice: ClickVoice(), enabled: true, gain: 1, pan: 0,
                               rate: BeatRate(subdivision: 3), followsHeart: true, silenced: false, chokeGroup: 1))
        // Every registered voice kind, once per workout its descriptor names (sounds: a test
        // clip), so a new kind is in this test as soon as it is registered. A choke group too.
        let clip = Fixtures.presets.appendingPathComponent("sounds/uke.wav").path
        let plugins = PluginBuilder(sampleRate: sampleRate, maxFrames: maxFrames, offline: false, stateFolder: nil)
        let context = VoiceBuildContext(sampleRate: sampleRate, maxFrames: maxFrames, offline: false, libraries: [:], load: { voice, field in
            try SampleFile.load(path: voice.sounds.first { $0.field == field }!.path, sampleRate: sampleRate)
        }, plugins: plugins)
        for descriptor in VoiceKinds.all {
            for (number, workout) in descriptor.workouts.enumerated() {
                var definition = Preset.VoiceDefinition(name: "\(descriptor.kind)-\(number)", kind: descriptor.kind, options: workout)
                for sound in descriptor.requiredSounds(definition) { definition.options[sound] = .text(clip) }
                let voice = LoadedVoice(definition: definition, file: preset.file, path: "bank", lines: [:])
                slots.append(VoiceSlot(name: definition.name, voice: try descriptor.build(voice, in: context), enabled: true, gain: 0.5,
                                       pan: 0.2, rate: BeatRate(subdivision: descriptor.kind == .arpeggio ? 4 : 1), followsHeart: true,
                                       silenced: false, chokeGroup: descriptor.kind == .convolution && number == 0 ? 1 : 0))
            }
        }
        slots.append(try clapInstrument(file: preset.file, context: context))
        // The hosted side: an arpeggio playing the LV2 instrument, and a click through a chain of
        // LV2 effects (a stereo effect, a mono one run per channel, an effect with a latency port)
        // whose controls `feed` moves at odd frames.
        let instrument = try XCTUnwrap(slots.first { $0.voice is LV2InstrumentVoice }?.voice as? LV2InstrumentVoice)
        let arpeggio = ArpeggioVoice(settings: .init())
        arpeggio.instrument = instrument
        slots.append(VoiceSlot(name: "arpeggio-on-lv2", voice: arpeggio, enabled: true, gain: 1, pan: 0,
                               rate: BeatRate(subdivision: 4), followsHeart: true, silenced: false))
        let chain = try plugins.chain(Self.insertChain) { path, message in InputError(file: "test", field: path, message) }
        slots.append(VoiceSlot(name: "click-through-inserts", voice: ClickVoice(), enabled: true, gain: 1, pan: 0,
                               rate: BeatRate(subdivision: 2), followsHeart: true, silenced: false, inserts: chain))
        insertVoice = Int32(slots.count - 1)
        // Drum regions: region 0 plays voice 1, region 1 cycles the mode, region 2 is the skipped beat.
        // The master's second insert in a process of its own: driven through shared memory each period.
        let masterInserts = try plugins.chain([.init(plugin: "http://drobilla.net/plugins/mda/Limiter"),
                                               .init(plugin: "http://lv2plug.in/plugins/eg-amp", controls: ["gain": -1], isolate: true),
                                               .init(plugin: "urn:zamaudio:ZamDelay", controls: ["sync": 1, "drywet": 0], isolate: true),
                                               .init(plugin: "clap:com.zamaudio.ZamAutoSat", isolate: true)]) { path, message in
            InputError(file: "test", field: path, message)
        }
        return Fixtures.engine(sampleRate: sampleRate, maxFrames: maxFrames, slots: slots + extra, noteVoices: [36: 0],
                               regionTargets: [.voice(1), .modeCycle, .voice(2)], sources: [ring], masterInserts: masterInserts,
                               rebuilding: rebuilding) {
            $0.skipRegion = 2
            $0.modeVoices = [.recording: 0, .playing: 1, .freestyle: 2]
            $0.setMaster(gainDB: 6, ceilingDB: -1)  // loud enough that the limiter works
            wire(&$0)
        }
    }

    /// A CLAP instrument (the project's own) as an lv2 voice on the heart: its notes as CLAP note events.
    private func clapInstrument(file: String, context: VoiceBuildContext) throws -> VoiceSlot {
        let definition = Preset.VoiceDefinition(name: "clap-instrument", kind: .lv2, options: [
            "plugin": .text(MisbehavingPlugins.clapURI("instrument")), "length": .number(0.05)])
        let voice = try LV2Kind().build(LoadedVoice(definition: definition, file: file, path: "bank", lines: [:]), in: context)
        return VoiceSlot(name: definition.name, voice: voice, enabled: true, gain: 0.5, pan: -0.2, rate: BeatRate(subdivision: 2),
                         followsHeart: true, silenced: false)
    }

    /// eg-amp, swh's lowpass and nodelay are mono (two instances each), mda Overdrive stereo; eg-amp's gain is port 0.
    static let insertChain: [Preset.Insert] = [
        .init(plugin: "http://lv2plug.in/plugins/eg-amp", controls: ["gain": -3]),
        .init(plugin: "http://plugin.org.uk/swh-plugins/lowpass_iir", controls: ["cutoff": 0.1]),
        .init(plugin: "http://drobilla.net/plugins/mda/Overdrive"),
        // Reports latency: the voice's heartbeat notes go early through the look-ahead.
        .init(plugin: "http://gareus.org/oss/lv2/nodelay", controls: ["delay": 64, "report_latency": 1]),
        // Takes the host's time: a position at each tempo change `feed` makes, in the run.
        .init(plugin: "urn:zamaudio:ZamDelay", controls: ["sync": 1]),
        // A CLAP plugin (pulsejack's own: DPF's CLAP builds allocate in their process), its gain
        // (port 4) moved at odd frames as events, told the transport each process.
        .init(plugin: MisbehavingPlugins.clapURI("clean")),
    ]
    private var insertVoice: Int32 = 0

    private func feed(_ ring: SPSCRing<ControlMessage>, at frame: Int64, step: Int) {
        let producer = ring.producer
        producer.push(ControlMessage(frame: frame + Int64(step % 200), .insertControl(InsertAddress(chain: insertVoice, stage: 0, port: 0),
                                                                                      Float(step % 12) - 6)))
        producer.push(ControlMessage(frame: frame + 101, .insertControl(InsertAddress(chain: insertVoice, stage: 2, port: InsertAddress.bypass),
                                                                        step % 3 == 0 ? 1 : 0)))
        producer.push(ControlMessage(frame: frame + Int64(step % 250), .insertControl(InsertAddress(chain: insertVoice, stage: 5, port: 4),
                                                                                      Float(step % 4))))
        producer.push(ControlMessage(.heartbeat(strength: 0.8)))
        producer.push(ControlMessage(frame: frame + 17, .voiceTrigger(voice: Int32(step % 4), velocity: 0.7)))
        producer.push(ControlMessage(.voiceParameter(voice: 1, .gain(Float(step % 10) / 10))))
        producer.push(ControlMessage(.voiceParameter(voice: 2, .pan(Float(step % 3) - 1))))
        producer.push(ControlMessage(.voiceParameter(voice: Int32(4 + step % 4), .gain(Float(step % 5) / 5))))
        producer.push(ControlMessage(.voiceParameter(voice: Int32(4 + step % 4), .enable(step % 7 != 0))))
        producer.push(ControlMessage(.voiceParameter(voice: 0, .rate(BeatRate(everyNthBeat: UInt8(step % 4 + 1), subdivision: 4)))))
        producer.push(ControlMessage(.regionHit(region: 0, velocity: 1)))
        producer.push(ControlMessage(.regionHit(region: Int32(step % 3), velocity: 1)))
        producer.push(ControlMessage(.pose(leftX: 0.1, leftY: 0.5, rightX: 0.2, rightY: 0.9)))
        producer.push(ControlMessage(.bandPower(.alpha, 0.5)))
        if step % 20 == 0 { producer.push(ControlMessage(.heartPresence(step % 40 == 0))) }
        if step % 50 == 0 { producer.push(ControlMessage(.tempo(bpm: step % 100 == 0 ? 300 : 240))) }
    }

    /// `ring`: the engine's source.
    private func countRealtimeAllocations(engine: RealtimeEngine, ring: SPSCRing<ControlMessage>, periods: Int,
                                          at steps: [Int: ControlMessage] = [:]) -> UInt64 {
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 300)))
        engine.warmUp()
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate(); input.deallocate() }
        for frame in 0..<256 { input[frame] = Float(frame % 37) / 37 - 0.5 }
        pj_rt_counters_reset()
        for step in 0..<periods {
            feed(ring, at: engine.framePosition, step: step)
            if var message = steps[step] {
                message.frame = engine.framePosition + 77
                ring.producer.push(message)
            }
            engine.process(frames: 256, left: left, right: right, inputLeft: input, inputRight: input)
            if step % 97 == 0 {
                // A lost cycle, and a period change's unrun cycle (pulses kept to sound late), as
                // ProcessHost meets them on the process thread.
                ProcessThread.enter()
                engine.skip(frames: 256, soundingLate: step % 194 == 0)
                ProcessThread.exit()
            }
        }
        return pj_rt_allocation_count()
    }

    func testTheProcessPathAllocatesNothingWhileEveryVoiceFires() throws {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try busyEngine(sampleRate: 48_000, maxFrames: 256, ring: ring)
        // Saved insert states loaded live three times: new instances swapped in mid-period (built
        // here, before counting), the old ones handed back.
        let states = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-rt-states-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: states) }
        _ = engine.handle.voiceStates(live: false)
        let saved = try engine.handle.savePluginStates(into: states)
        let swaps = try [300, 900, 1500].map { step in
            (step, try engine.handle.insertStateMessage(place: "click-through-inserts", insert: 1,
                                                 state: try XCTUnwrap(saved["click-through-inserts.insert1"]).state))
        }
        let allocations = countRealtimeAllocations(engine: engine, ring: ring, periods: 2000, at: Dictionary(uniqueKeysWithValues: swaps))
        var handedBack = 0
        while let retired = engine.handle.retiredClips.consumer.pop() { retired.release(); handedBack += 1 }
        XCTAssertEqual(handedBack, 3, "each swap handed the replaced instances back")
        let counts = engine.handle.counters.snapshot()
        XCTAssertGreaterThan(counts[.voicesFired], 5000, "the voices really fired")
        XCTAssertEqual(engine.handle.publishedLatency.load(ordering: .relaxed), 64, "the look-ahead ran: nodelay's 64 frames were compensated")
        XCTAssertGreaterThan(isolatedRuns(engine), 0, "the isolated master insert's process answered")
        XCTAssertGreaterThan(engine.pluginTimeChanges, 10, "the plugins that take time were told its changes")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// A hosted instrument alone: its quiet periods (`RealtimeEngine.playQuietPeriod`) and the
    /// periods with a note or a beat due in them allocate nothing and take no lock.
    func testAnInstrumentsQuietPeriodsAllocateNothing() throws {
        let preset = FileManager.default.temporaryDirectory.appendingPathComponent("pulsejack-rt-quiet-\(getpid()).yaml")
        defer { try? FileManager.default.removeItem(at: preset) }
        try "name: quiet\nvoices:\n  - {name: piano, kind: lv2, plugin: 'http://drobilla.net/plugins/mda/EPiano', length: 0.05}\n"
            .write(to: preset, atomically: true, encoding: .utf8)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 64)
        let engine = try EngineGraph.build(preset: LoadedPreset.load(path: preset.path), sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 150)))
        engine.warmUp()
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        pj_rt_counters_reset()
        for step in 0..<2000 {
            if step % 8 == 3 { ring.producer.push(ControlMessage(frame: engine.framePosition + 40, .voiceTrigger(voice: 0, velocity: 0.8))) }
            engine.process(frames: 256, left: left, right: right)
        }
        let allocations = pj_rt_allocation_count()
        XCTAssertGreaterThan(engine.quietPeriods, 1000, "most periods were quiet")
        XCTAssertGreaterThanOrEqual(engine.handle.counters.value(.voicesFired), 250 + 26, "the 250 triggers and the 26 beats of 10.7 s at 150 BPM played it")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// Modulations of every source kind onto every kind of destination — smoothed, gliding on a
    /// dropout, switched off and on — while every kind of message that feeds them arrives:
    /// nothing allocated, no lock taken.
    func testModulationsOfEverySourceKindAllocateNothing() throws {
        let folder = try TemporaryFolder("rt-modulations")
        defer { folder.remove() }
        try """
            modulations:
              - {from: heart.bpm, to: voice.click.gain, from_range: [60, 140], smooth: 0.2}
              - {from: heart.rr, to: voice.click.pan, from_range: [0.4, 1]}
              - {from: heart.rmssd, to: voice.click.insert.1.gain, to_range: [-20, 0]}
              - {from: heart.sdnn, to: voice.piano.velocity, on_dropout: {value: 40, seconds: 1}}
              - {from: heart.breath_rate, to: master.gain, to_range: [0.5, 1]}
              - {from: beat.phase, to: voice.piano.pan}
              - {from: eeg.alpha, to: voice.piano.control.modulation, curve: smooth}
              - {from: eeg.relaxation, to: master.insert.1.gain, to_range: [-6, 0]}
              - {from: pose.right.y, to: voice.piano.gain, to_range: [0.2, 0.8]}
              - {from: pose.spread, to: voice.click.velocity}
              - {from: signal.breath_belt, to: voice.piano.control.lfo_rate, on_dropout: {value: 0.5, seconds: 0.5, after: 0.2}}
              - {from: midi.cc.1, to: voice.piano.control.hardness}
            voices:
              - name: click
                kind: click
                inserts: [{plugin: http://lv2plug.in/plugins/eg-amp}]
              - {name: piano, kind: lv2, plugin: 'http://drobilla.net/plugins/mda/EPiano', length: 0.05}
            master:
              inserts: [{plugin: http://lv2plug.in/plugins/eg-amp}]
            """.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try EngineGraph.build(preset: LoadedPreset.load(path: folder.path), sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        XCTAssertEqual(engine.modulations?.count, 12)
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 80)))
        engine.warmUp()
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        pj_rt_counters_reset()
        for step in 0..<3000 {
            let frame = engine.framePosition + Int64(step % 200)
            let events: [ControlMessage.Event] = [
                .tempo(bpm: 70 + Double(step % 40)), .rrIntervals(RRIntervals([UInt16(700 + step % 300), 820])!),
                .heartbeat(strength: 0.9), .bandPower(.alpha, Float(step % 10) / 10), .bandPower(.beta, 0.3),
                .pose(leftX: -0.5, leftY: 0, rightX: 0.5, rightY: Float(step % 7) / 7), .signal(index: 0, Float(step % 5) / 5),
                .modulationEnable(index: 3, step % 400 < 200), .heartPresence(step % 600 < 500),
            ]
            if step % 3 == 0 { ring.producer.push(ControlMessage(frame: frame, events[(step / 3) % events.count])) }
            if step % 5 == 0 { engine.receiveMIDI(status: 0xB0, key: 1, value: UInt8(step % 128), offset: step % 256) }
            engine.process(frames: 256, left: left, right: right)
        }
        let allocations = pj_rt_allocation_count()
        XCTAssertGreaterThan(engine.handle.counters.value(.messagesApplied), 900)
        XCTAssertEqual(engine.handle.counters.value(.invalidMessages), 0)
        let readings = (0..<12).map { engine.handle.modulationReadings.reading($0) }
        XCTAssertTrue(readings.allSatisfy { !$0.source.isNaN }, "every source read: \(readings)")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// The runs the isolated master insert's process answered.
    private func isolatedRuns(_ engine: RealtimeEngine) -> Int {
        let isolated = engine.handle.hostedPlugins().first { $0.place == "master.insert2" }?.instances[0].isolation
        XCTAssertNotNil(isolated, "the master's second insert is isolated")
        return isolated?.answered.load(ordering: .relaxed) ?? 0
    }

    func testTheCounterCatchesAVoiceThatAllocates() throws {
        let bad = VoiceSlot(name: "bad", voice: AllocatingVoice(), enabled: true, gain: 1, pan: 0, rate: .everyBeat,
                            followsHeart: true, silenced: false)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try busyEngine(sampleRate: 48_000, maxFrames: 256, extra: [bad], ring: ring)
        XCTAssertGreaterThan(pj_total_allocation_count(), 0, "the interposer is live")
        XCTAssertGreaterThanOrEqual(countRealtimeAllocations(engine: engine, ring: ring, periods: 100), 100)
        let trace = RealtimeAllocationTrace.first
        XCTAssertTrue(trace.contains("AllocatingVoice"), "the first allocation's stack names the voice that made it: \(trace)")
    }

    /// The same under a real jackd: the count is taken on JACK's own process thread.
    /// Everything beside the engine on the process thread runs too: MIDI out (to a listening
    /// peer), the meters, a recording, and the transport as timebase master and follower.
    /// `portPerVoice`: every voice also has a stereo pair and a MIDI port of its own (`--outputs
    /// voices --midi-out voices`), listened to by peers.
    private func runUnderJack(extra: [VoiceSlot], seconds: Double,
                              portPerVoice: Bool = false) throws -> (allocations: UInt64, engine: RealtimeEngine) {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let client = try JackClient(name: "pulsejack-rt-test")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        var options = JackClient.Options()
        options.timebase = .takeOver
        options.followTransport = true
        let engine = try busyEngine(sampleRate: client.sampleRate, maxFrames: client.bufferSize, extra: extra, ring: ring) {
            if portPerVoice { $0.outputs = .perVoice($0.voiceNames) }
            $0.sendsGrid = true
            $0.followsGrid = true
        }
        ring.producer.push(ControlMessage(.tempo(bpm: 300)))
        let wav = NSTemporaryDirectory() + "pulsejack-rt-\(getpid()).wav"
        defer { unlink(wav) }
        options.meter = OutputMeter()
        options.recorder = try OutputRecorder(path: wav, sampleRate: client.sampleRate, maxFrames: client.bufferSize)
        options.recorder?.start()
        if portPerVoice { options.outputs = .perVoice(engine.handle.voiceNames) }
        // Counted from before activation: the first periods (lazy statics, first calls) too.
        pj_rt_counters_reset()
        try client.activate(engine: engine, options: options)
        let daw = try MidiCapture(name: "pulsejack-rt-daw")
        try daw.connect(from: "\(client.name):midi_out")
        let voiceTrack = try portPerVoice ? MidiCapture(name: "pulsejack-rt-track") : nil
        let voiceEar = try portPerVoice ? CaptureClient(name: "pulsejack-rt-ear", threshold: 0.1) : nil
        try voiceTrack?.connect(from: "\(client.name):click_midi")
        // The thump's port: the click's sounds only between chokes and dropout fades, which
        // `feed`'s racing messages place differently each run (8 to 52 samples above 0.1 in 3 s).
        try voiceEar?.connect(from: "\(client.name):heart_L")
        let transport = try TransportPeer(name: "pulsejack-rt-transport")
        transport.start()
        defer {
            transport.stop()
            transport.close()
            daw.close()
            voiceTrack?.close()
            voiceEar?.close()
        }
        usleep(200_000)
        let started = Date()
        var step = 0
        while Date().timeIntervalSince(started) < seconds {
            feed(ring, at: engine.framePosition, step: step)
            step += 1
            usleep(5_000)
        }
        let allocations = pj_rt_allocation_count()
        client.deactivate()
        XCTAssertGreaterThan(daw.received.count, 10, "MIDI out ran")
        XCTAssertGreaterThan(try options.recorder?.finish() ?? 0, 0, "the recording ran")
        XCTAssertGreaterThan(options.meter?.blocks.consumer.available() ?? 0, 0, "the meters ran")
        XCTAssertEqual(transport.bbt?.bpm, engine.hearts.clock(0).bpm, "the timebase ran")
        if portPerVoice {
            XCTAssertGreaterThan(voiceTrack?.received.filter(\.isNoteOn).count ?? 0, 10, "a voice's MIDI port ran")
            XCTAssertGreaterThan(voiceEar?.onsets.count ?? 0, 10, "a voice's audio port ran")
        }
        return (allocations, engine)
    }

    func testNoAllocationOnJacksProcessThread() throws {
        let (allocations, engine) = try runUnderJack(extra: [], seconds: 3)
        let counts = engine.handle.counters.snapshot()
        XCTAssertGreaterThan(counts[.periods], 100, "JACK ran the process callback")
        XCTAssertGreaterThan(counts[.voicesFired], 100)
        XCTAssertGreaterThan(isolatedRuns(engine), 0, "the isolated master insert's process answered")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// Over 64 voices, each with a stereo pair and a MIDI port of its own: over 190 ports more,
    /// written and flushed on JACK's process thread without an allocation or a lock.
    func testNoAllocationOnJacksProcessThreadWithPortsPerVoice() throws {
        let clicks = (0..<64).map { number in
            VoiceSlot(name: "clicks-\(number)", voice: ClickVoice(), enabled: true, gain: 0.01, pan: 0,
                      rate: BeatRate(subdivision: 2), followsHeart: true, silenced: false)
        }
        let (allocations, engine) = try runUnderJack(extra: clicks, seconds: 3, portPerVoice: true)
        XCTAssertGreaterThanOrEqual(engine.handle.voiceNames.count, 64)
        XCTAssertGreaterThan(engine.handle.counters.snapshot()[.periods], 100, "JACK ran the process callback")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// PipeWire (`make test`'s PipeWire pass runs this one) changes its rate mid-run: JACK's
    /// process thread parks the busy engine (silence on every port), takes the one rebuilt at
    /// 44.1 kHz at a cycle's start with the recording's next take, hands back what it replaced,
    /// and runs on — without an allocation or a lock in all of it.
    func testNoAllocationOnJacksProcessThreadThroughARateChange() throws {
        guard TestServer.isPipeWire else { throw XCTSkip("on jackd2, whose rate cannot change while it runs (PipeWire's pass runs this)") }
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let client = try JackClient(name: "pulsejack-rt-rate")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try busyEngine(sampleRate: client.sampleRate, maxFrames: client.bufferSize, ring: ring)
        XCTAssertEqual(engine.sampleRate, 48_000)
        ring.producer.push(ControlMessage(.tempo(bpm: 300)))
        let folder = try TemporaryFolder("rt-rate")
        var options = JackClient.Options()
        options.recorder = try OutputRecorder(path: folder.url.appendingPathComponent("take.wav").path, sampleRate: 48_000,
                                              maxFrames: client.bufferSize, freewheeling: client.freewheelFlag)
        options.recorder?.start()
        options.meter = OutputMeter()
        pj_rt_counters_reset()
        try client.activate(engine: engine, options: options)
        defer {
            _ = try? Subprocess.run("/usr/bin/pw-metadata", ["-n", "settings", "0", "clock.force-rate", "48000"], timeout: 10)
        }
        var step = 0
        func feed(until done: () -> Bool, seconds: Double, on running: RealtimeEngine) {
            let started = Date()
            while !done() && Date().timeIntervalSince(started) < seconds {
                self.feed(ring, at: running.framePosition, step: step)
                step += 1
                usleep(5_000)
            }
        }
        usleep(200_000)
        feed(until: { false }, seconds: 0.5, on: engine)
        let forced = try Subprocess.run("/usr/bin/pw-metadata", ["-n", "settings", "0", "clock.force-rate", "44100"], timeout: 10)
        XCTAssertEqual(forced.status, 0, forced.stderr)
        feed(until: { client.waitsForRebuiltEngine }, seconds: 5, on: engine)
        XCTAssertTrue(client.waitsForRebuiltEngine, "the process thread parked the 48 kHz engine")
        XCTAssertTrue(client.claimParkedEngine(), "the parked engine is this thread's to carry over")
        let periodsParked = engine.handle.counters.snapshot()[.periods]
        let next = try busyEngine(sampleRate: 44_100, maxFrames: client.bufferSize, ring: ring, rebuilding: engine.handle)
        next.warmUp()
        XCTAssertEqual(next.takeOver(from: engine, stateFolder: folder.url.appendingPathComponent("states").path), [])
        let take = try OutputRecorder(path: folder.url.appendingPathComponent("take-2.wav").path, sampleRate: 44_100,
                                      maxFrames: client.bufferSize, freewheeling: client.freewheelFlag)
        take.start()
        XCTAssertTrue(client.offer(EngineSwap(engine: next, recorder: take)))
        var swapped: EngineSwap?
        feed(until: { swapped = client.takeSwapped(); return swapped != nil }, seconds: 5, on: next)
        XCTAssertTrue(swapped?.replacedEngine === engine, "the process thread took the rebuilt engine and handed the old one back")
        feed(until: { false }, seconds: 0.5, on: next)
        let allocations = pj_rt_allocation_count()
        client.deactivate()
        XCTAssertGreaterThan(next.handle.counters.snapshot()[.periods], periodsParked + 20, "the rebuilt engine ran")
        XCTAssertGreaterThan(try take.finish(), 0, "the second take was written")
        _ = try options.recorder?.finish()
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// `feed`'s messages into the running engine for four seconds; the allocations counted on the
    /// process thread meanwhile, then the client deactivated.
    private func feedForFourSeconds(_ ring: SPSCRing<ControlMessage>, _ engine: RealtimeEngine, _ client: JackClient) -> UInt64 {
        let started = Date()
        var step = 0
        while Date().timeIntervalSince(started) < 4 {
            feed(ring, at: engine.framePosition, step: step)
            step += 1
            usleep(5_000)
        }
        let allocations = pj_rt_allocation_count()
        client.deactivate()
        return allocations
    }

    /// A strap streaming over BlueZ (BlueZoo, a fake strap with a real recording's RR intervals)
    /// into the busy engine while it runs under JACK: the sensor thread's ring, its predicted
    /// beats at their frames and its RR intervals go through the process thread without an
    /// allocation or a lock.
    func testNoAllocationOnJacksProcessThreadWithASensorStreaming() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let bluez = try PrivateBlueZ()
        defer { bluez.stop() }
        let folder = try TemporaryFolder("rt-sensor")
        defer { folder.remove() }
        try PrivateBlueZ.recordedRR(end: 40, into: folder.file("rr.txt"))
        let strap = try bluez.startFake(["--adapter", "hci1", "--name", "RT Strap", "strap", "--rr", folder.file("rr.txt")])
        let client = try JackClient(name: "pulsejack-rt-sensor")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        var configuration = SensorInput.Configuration()
        configuration.sensors = [SensorRequest(kind: .heartRate, match: .address("00:AA:BB:CC:DD:EE"))]
        configuration.busAddress = bluez.address
        configuration.predictBeats = true
        var sensors: SensorInput?
        let engine = try busyEngine(sampleRate: client.sampleRate, maxFrames: client.bufferSize, ring: ring) { setup in
            let input = SensorInput(configuration: configuration, clock: JackFrameClock(handle: setup.handle, client: client), hearts: nil,
                                    log: { _ in }, say: { _ in })
            setup.sources.append(input.ring)
            sensors = input
        }
        let input = try XCTUnwrap(sensors)
        pj_rt_counters_reset()
        try client.activate(engine: engine, options: JackClient.Options())
        input.start()
        defer { input.stop() }
        XCTAssertTrue(PrivateBlueZ.waitFor(seconds: 15) { input.status.first?.notifications ?? 0 >= 3 }, "\(input.status) \(strap.stderr)")
        let beatsBefore = engine.handle.counters.snapshot()[.beats]
        let notified = input.status.first?.notifications ?? 0
        let allocations = feedForFourSeconds(ring, engine, client)
        XCTAssertGreaterThanOrEqual((input.status.first?.notifications ?? 0) - notified, 3, "the strap streamed meanwhile")
        XCTAssertGreaterThan(engine.handle.counters.snapshot()[.beats], beatsBefore, "beats were played")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// A camera (a video of a real person, messi5.jpg swinging 20° either way, played at its own
    /// rate) read by the pose threads into the busy engine while it runs under JACK: the fists' `pose`
    /// messages and region hits go through the process thread without an allocation or a lock.
    func testNoAllocationOnJacksProcessThreadWithACameraStreaming() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("rt-camera")
        defer { folder.remove() }
        let video = folder.file("swing.mkv")
        let made = try Subprocess.run(try XCTUnwrap(Subprocess.which("ffmpeg"), "ffmpeg (make debs installs it)"), [
            "-loglevel", "error", "-loop", "1", "-i", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "-t", "5", "-r", "10",
            "-vf", "rotate='if(lt(mod(t,1),0.5),-0.35,0.35)'", "-c:v", "ffv1", "-pix_fmt", "bgr0", video])
        XCTAssertEqual(made.status, 0, made.stderr)
        let client = try JackClient(name: "pulsejack-rt-camera")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        var camera: PoseInput?
        let engine = try busyEngine(sampleRate: client.sampleRate, maxFrames: client.bufferSize, ring: ring) { setup in
            var settings = PoseInput.Configuration(models: try! PoseModelFiles.find())
            (settings.source, settings.regionNames, settings.delay) = (.file(video), setup.handle.regionNames, 0.2)
            let input = try! PoseInput(configuration: settings, clock: LabClock(frames: JackFrameClock(handle: setup.handle, client: client)),
                                       log: { _ in })
            setup.sources.append(input.ring)
            camera = input
        }
        let input = try XCTUnwrap(camera)
        pj_rt_counters_reset()
        try client.activate(engine: engine, options: JackClient.Options())
        input.start()
        defer { input.stop() }
        let allocations = feedForFourSeconds(ring, engine, client)
        XCTAssertGreaterThanOrEqual(input.status.frames, 20, "the camera streamed meanwhile: \(input.status)")
        XCTAssertEqual(input.status.state == "detecting" || input.status.state == "lost", false, "a person was seen: \(input.status)")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// Ableton Link leading with the heart, start and stop synced with a transport that rolls:
    /// each period's capture, the tempo's commit at each change (`feed` moves it every 50
    /// steps), the transport's state into the session, and the grid heart laid on the session's
    /// beats; MIDI clock on `clock_out` to a JACK MIDI capture, with Start at the transport's
    /// start; the hosted plugins told the time at each change — without an allocation or a lock.
    /// The peer is not joined (no network here): a session alone runs the same process-thread calls.
    func testNoAllocationOnJacksProcessThreadWithLinkLeadingMIDIClockAndPluginTime() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        let client = try JackClient(name: "pulsejack-rt-link")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try busyEngine(sampleRate: client.sampleRate, maxFrames: client.bufferSize, ring: ring) { $0.sendsMIDIClock = true }
        var options = JackClient.Options()
        options.midiClock = true
        let link = try LinkSession(bpm: 120, settings: LinkSession.Settings(startStop: true))
        options.link = link
        link.startUpkeep(client: client)
        defer { link.stopUpkeep() }
        let transport = try TransportPeer(name: "pulsejack-rt-link-transport")
        defer { transport.stop(); transport.close() }
        let clocks = try MidiCapture(name: "pulsejack-rt-link-clocks")
        defer { clocks.close() }
        pj_rt_counters_reset()
        try client.activate(engine: engine, options: options)
        try clocks.connect(from: "pulsejack-rt-link:clock_out")
        transport.start()
        let allocations = feedForFourSeconds(ring, engine, client)
        XCTAssertGreaterThan(clocks.received.filter { $0.status == 0xF8 }.count, 100, "the clocks went out")
        XCTAssertGreaterThan(engine.pluginTimeChanges, 3, "the plugins that take time were told its changes")
        XCTAssertGreaterThan(Double(bitPattern: link.readings.beat.load(ordering: .relaxed)), 1, "the session's beats went by")
        XCTAssertEqual(Double(bitPattern: link.readings.tempo.load(ordering: .relaxed)), engine.gridClock.bpm, accuracy: 1e-6,
                       "the heart's tempo was committed")
        XCTAssertEqual(allocations, 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
    }

    /// PipeWire's libjack stops a process thread with pthread_cancel while holding the lock
    /// around the process callback; a thread cancelled inside ours (at an eventfd write, a
    /// cancellation point) would die holding it. Its voices render where it cannot be cancelled.
    func testJacksProcessThreadCannotBeCancelledInsideAPeriod() throws {
        let probe = CancellationProbeVoice()
        let slot = VoiceSlot(name: "probe", voice: probe, enabled: true, gain: 1, pan: 0, rate: .everyBeat,
                             followsHeart: true, silenced: false)
        _ = try runUnderJack(extra: [slot], seconds: 1)
        let seen = probe.seen
        XCTAssertGreaterThan(seen.renders, 10, "the probe rendered on JACK's thread")
        XCTAssertEqual(seen.cancellable, 0, "renders where the thread could have been cancelled")
    }

    func testTheCounterCatchesAnAllocationOnJacksProcessThread() throws {
        let bad = VoiceSlot(name: "bad", voice: AllocatingVoice(), enabled: true, gain: 1, pan: 0, rate: .everyBeat,
                            followsHeart: true, silenced: false)
        let (allocations, engine) = try runUnderJack(extra: [bad], seconds: 1)
        XCTAssertGreaterThan(engine.handle.counters.snapshot()[.periods], 10)
        XCTAssertGreaterThan(allocations, 10)
    }
}

/// The engine marks the thread running a period: a voice's render sees it, the caller does not
/// after `process` returns (debug builds stop a lock or a setup step made there).
final class ProcessThreadMarkTests: XCTestCase {
    private final class ProbeVoice: Voice, @unchecked Sendable {
        var renders = 0, marked = 0
        func prepare(sampleRate: Int, maxFrames: Int) {}
        func trigger(atFrame offset: Int, velocity: Float) {}
        func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
            renders += 1
            if ProcessThread.isCurrent { marked += 1 }
        }
        func silence() {}
        var isSounding: Bool { true }
    }

    func testAPeriodRunsMarkedAsTheProcessThread() {
        let probe = ProbeVoice()
        let engine = Fixtures.engine(maxFrames: 256, slots: [VoiceSlot(name: "probe", voice: probe, enabled: true, gain: 1, pan: 0,
                                                                       rate: .everyBeat, followsHeart: false, silenced: false)])
        let rendersBefore = probe.renders
        _ = Fixtures.run(engine, sizes: [256], periods: 4)
        XCTAssertEqual(probe.renders - rendersBefore, 4)
        XCTAssertEqual(probe.marked, 4, "every period's render ran marked")
        XCTAssertFalse(ProcessThread.isCurrent, "and the mark is off after process")
    }
}
