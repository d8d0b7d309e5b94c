import CAllocCounter
import CJack
import Inputs
import Foundation
import JackPeers
import Realtime
import Engine
import JackBackend
import Presets

/// Row 7: allocations and mutex locks on JACK's process thread during a real-time run with every
/// voice active, counted by the malloc/pthread_mutex_lock interposer linked into this program.
enum SafetyBench {
    nonisolated(unsafe) static var controlAllocation: UnsafeMutableRawPointer?

    static func everyVoicePreset() throws -> LoadedPreset {
        let sounds = BenchFixtures.repository.appendingPathComponent("presets/sounds").path
        let yaml = """
        name: every-voice
        voices:
          - {name: heart, kind: sample, file: \(sounds)/thump.wav, subdivide: 4}
          - {name: tick, kind: sample, file: \(sounds)/tick.wav, subdivide: 3}
          - {name: bell, kind: sample, file: \(sounds)/bell.wav, every: 2}
          - {name: click, kind: click, subdivide: 2, midi_note: 60, choke: 1}
          - {name: tap, kind: tap, choreography: [paradiddle, shuffle, flap, cramp_roll, brush], toe: \(sounds)/tap-toe.wav, heel: \(sounds)/tap-heel.wav, scuff: \(sounds)/tap-scuff.wav}
          - {name: arpeggio, kind: arpeggio, order: random, octaves: 3, subdivide: 4}
          - {name: uke, kind: convolution, file: \(sounds)/uke.wav, shape: lub-dub, choke: 1}
          - {name: room, kind: convolution, file: \(sounds)/singing.wav, input: true}
          - {name: music, kind: track, library: \(sounds)/../musicmood/library, every: 16}
        regions: {right-down: tap, left-down: click, left-up: uke, right-up: mode}
        skip_region: left-up
        mode_sounds: {recording: click, playing: tap}
        """
        let path = BenchFixtures.folder.appendingPathComponent("every-voice.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: path)
    }

    static func run(seconds: Double) throws -> [BenchRow] {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        let client = try JackClient(name: "pulsejack")
        let sensor = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try EngineGraph.build(preset: everyVoicePreset(), sampleRate: client.sampleRate, maxFrames: client.bufferSize) {
            $0.sources = [sensor]
            $0.sendsGrid = true  // the timebase below
        }
        sensor.producer.push(ControlMessage(.tempo(bpm: 240)))
        // The studio extras on the process thread too: meters, a recording, the timebase, MIDI out.
        var options = JackClient.Options()
        options.meter = OutputMeter()
        let recording = NSTemporaryDirectory() + "pulsejack-safety-\(getpid()).wav"
        defer { unlink(recording) }
        options.recorder = try OutputRecorder(path: recording, sampleRate: client.sampleRate, maxFrames: client.bufferSize)
        options.recorder?.start()
        options.timebase = .takeOver
        try client.activate(engine: engine, options: options)
        let pad = try MidiSender(name: "pad", note: 60, everyPeriods: 3)
        try pad.connect(to: "\(client.name):midi_in")
        let daw = try MidiCapture(name: "daw")
        try daw.connect(from: "\(client.name):midi_out")
        let transport = try TransportPeer(name: "transport")
        transport.start()
        pj_rt_counters_reset()
        feed(sensor.producer, seconds: seconds)
        let allocations = pj_rt_allocation_count()
        let locks = pj_rt_lock_count()
        client.deactivate()
        pad.close()
        transport.close()
        daw.close()
        let recorded = (try? options.recorder?.finish()) ?? 0
        let counts = engine.handle.counters.snapshot()
        client.close()
        let control = controlAllocationCount()
        return [BenchRow(
            row: "7. Real-time safety",
            measure: String(format: "%.0f s live on dummy jackd, every voice kind active (sample, click, tap, arpeggio, sparse and dense convolution, track player), drum regions and modes, MIDI out, meters, a recording and the timebase: %d periods, %d voices fired, %d MIDI notes in, %d out, %d frames recorded",
                            seconds, counts[.periods], counts[.voicesFired], pad.sentFrames.count, daw.received.filter(\.isNoteOn).count, recorded),
            pulsejack: "\(allocations) allocations, \(locks) mutex locks on the process thread",
            reference: "control: a deliberate malloc in a marked section counts \(control)",
            command: ".build/release/pulsejack-bench --only safety")]
    }

    /// A hundred rounds a second of every kind of message the engine plays for `seconds`.
    private static func feed(_ producer: SPSCRing<ControlMessage>.Producer, seconds: Double) {
        let started = Date()
        var step = 0
        while Date().timeIntervalSince(started) < seconds {
            producer.push(ControlMessage(.heartbeat(strength: 0.7)))
            producer.push(ControlMessage(.voiceTrigger(voice: Int32(step % 8), velocity: 0.5)))
            producer.push(ControlMessage(.voiceParameter(voice: Int32(step % 8), .gain(Float(step % 8) / 8))))
            producer.push(ControlMessage(.voiceParameter(voice: Int32(step % 8), .pan(Float(step % 3) - 1))))
            if step % 100 == 0 { producer.push(ControlMessage(.tempo(bpm: Double(120 + step % 180)))) }
            producer.push(ControlMessage(.regionHit(region: Int32(step % 4), velocity: 0.8)))
            producer.push(ControlMessage(.pose(leftX: -0.1, leftY: 0.5, rightX: 0.1, rightY: 0.5)))
            step += 1
            usleep(10_000)
        }
    }

    /// The control: one allocation made on purpose inside a marked section is seen.
    private static func controlAllocationCount() -> UInt64 {
        pj_rt_counters_reset()
        ProcessThread.enter()
        // Kept in a global, so the optimizer cannot drop the allocation.
        controlAllocation = malloc(64)
        ProcessThread.exit()
        free(controlAllocation)
        return pj_rt_allocation_count()
    }
}
