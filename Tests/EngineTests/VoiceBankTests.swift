import Inputs
import Foundation
import TestSupport
import Voices
import EngineFixtures
import XCTest
import Realtime
@testable import Engine
@testable import Presets

/// The voice bank inside the engine: tap figures, arpeggio, smoothing, choke groups, presets.
final class VoiceBankTests: XCTestCase {
    private let impulse = SampleBuffer(channelData: [[1]], sampleRate: 48_000)

    private func engine(_ slots: [VoiceSlot], fired: SPSCRing<FiredVoice>? = nil) -> (RealtimeEngine, SPSCRing<ControlMessage>) {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 256)
        let engine = Fixtures.engine(sampleRate: 48_000, maxFrames: 256, slots: slots, noteVoices: [:], regionTargets: [],
                                    fired: fired, sources: [ring])
        return (engine, ring)
    }

    private func slot(_ name: String, _ voice: any Voice, rate: BeatRate = .everyBeat, gain: Float = 1, choke: Int = 0) -> VoiceSlot {
        VoiceSlot(name: name, voice: voice, enabled: true, gain: gain, pan: 0, rate: rate, followsHeart: true, silenced: false,
                  chokeGroup: choke)
    }

    func testTapFiguresHitExactSubdivisionFramesAndStretchWithTheTempo() {
        let steps: [TapStep] = [.paradiddle, .shuffle, .flap, .crampRoll, .brush]
        let tap = TapDanceVoice(choreography: steps, toe: impulse, heel: impulse, scuff: impulse)
        let (engine, ring) = engine([slot("tap", tap)])
        // 100 BPM (28 800 frames a beat, 2 400 a pulse) for five beats, then 120 BPM (2 000 a pulse).
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 100)))
        ring.producer.push(ControlMessage(frame: 5 * 28_800, .tempo(bpm: 120)))
        let out = Fixtures.run(engine, sizes: [256, 100, 1000], periods: 800).left
        var expected: [Int] = []
        for beat in 0..<10 {
            let (start, pulse) = beat < 5 ? (beat * 28_800, 2400) : (5 * 28_800 + (beat - 5) * 24_000, 2000)
            expected += steps[beat % steps.count].hits.map { start + $0.pulse * pulse }
        }
        let onsets = WavFile.onsets(out, threshold: 0.05)
        XCTAssertEqual(Array(onsets.prefix(expected.count)), expected)
    }

    func testArpeggioPlaysTheProgressionsPitchesInOrder() {
        var settings = ArpeggioVoice.Settings()
        settings.chords = ArpeggioVoice.Settings.parse(["C", "Am"], baseNote: 60)!
        settings.order = .up
        settings.stepsPerChord = 3
        settings.waveform = .sine
        settings.gate = 0.9
        let arpeggio = ArpeggioVoice(settings: settings)
        let (engine, ring) = engine([slot("arp", arpeggio)])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 60)))  // one note a second
        let out = Fixtures.run(engine, sizes: [256], periods: 188 * 6).left
        // Estimate each note's frequency from zero crossings in the middle of its step.
        var estimated: [Double] = []
        for step in 0..<6 {
            let window = out[(step * 48_000 + 8_000)..<(step * 48_000 + 40_000)]
            let crossings = zip(window, window.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            estimated.append(Double(crossings) / (32_000 / 48_000))
        }
        let expected = [60, 64, 67, 69, 72, 76].map { 440 * pow(2, Double($0 - 69) / 12) }
        for (got, want) in zip(estimated, expected) { XCTAssertEqual(got, want, accuracy: want * 0.01) }
        XCTAssertGreaterThan(out.map(abs).max()!, 0.1)
    }

    func testArpeggioOrders() {
        func sequence(_ order: ArpeggioVoice.Order, octaves: Int = 1) -> [Int] {
            var settings = ArpeggioVoice.Settings()
            settings.chords = [[60, 64, 67]]
            settings.order = order
            settings.octaves = octaves
            settings.stepsPerChord = 100
            let voice = ArpeggioVoice(settings: settings)
            return (0..<8).map { voice.pitch(forStep: Int64($0)) }
        }
        XCTAssertEqual(sequence(.up), [60, 64, 67, 60, 64, 67, 60, 64])
        XCTAssertEqual(sequence(.down), [67, 64, 60, 67, 64, 60, 67, 64])
        XCTAssertEqual(sequence(.upDown), [60, 64, 67, 64, 60, 64, 67, 64])
        XCTAssertEqual(sequence(.up, octaves: 2), [60, 64, 67, 72, 76, 79, 60, 64])
        let random = sequence(.random, octaves: 2)
        XCTAssertTrue(random.allSatisfy { [60, 64, 67, 72, 76, 79].contains($0) })
        XCTAssertEqual(random, sequence(.random, octaves: 2), "random order is reproducible")
        XCTAssertEqual(ArpeggioVoice.Settings.parse(["C", "G", "Am", "F"], baseNote: 60)!,
                       [[60, 64, 67], [67, 71, 74], [69, 72, 76], [65, 69, 72]])
    }

    func testParameterChangesDuringPlaybackNeverJump() {
        // A sustained 1 kHz tone at 0.5: its own largest step is 2π·1000/48000·0.5 ≈ 0.065.
        let tone = (0..<96_000).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 48_000)) }
        let voice = SampleVoice(sample: SampleBuffer(channelData: [tone], sampleRate: 48_000))
        let (engine, ring) = engine([VoiceSlot(name: "tone", voice: voice, enabled: true, gain: 1, pan: 0, rate: .everyBeat,
                                               followsHeart: false, silenced: false)])
        ring.producer.push(ControlMessage(frame: 0, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(ControlMessage(frame: 10_000, .voiceParameter(voice: 0, .gain(0))))
        ring.producer.push(ControlMessage(frame: 20_000, .voiceParameter(voice: 0, .gain(2))))
        ring.producer.push(ControlMessage(frame: 30_000, .voiceParameter(voice: 0, .pan(-1))))
        ring.producer.push(ControlMessage(frame: 40_000, .voiceParameter(voice: 0, .pan(1))))
        let out = Fixtures.run(engine, sizes: [256], periods: 240)
        for channel in [out.left, out.right] {
            let largestStep = zip(channel.dropFirst(), channel).map { abs($0 - $1) }.max()!
            XCTAssertLessThan(largestStep, 0.14, "a full-scale gain change slews over 10 ms")
        }
        XCTAssertEqual(out.left[19_000], 0, accuracy: 1e-6, "gain 0 reached")
        XCTAssertEqual(out.right[39_000], 0, accuracy: 1e-6, "panned hard left")
        // The control: without smoothing, the same change would jump by up to 0.5.
        XCTAssertGreaterThan(out.left[25_000..<29_000].map(abs).max()!, 0.95, "gain 2 reached")
    }

    func testAChokeGroupFadesTheOtherVoiceOut() {
        let long = SampleBuffer(channelData: [[Float](repeating: 0.5, count: 48_000)], sampleRate: 48_000)
        let open = SampleVoice(sample: long), closed = SampleVoice(sample: impulse)
        let (engine, ring) = engine([slot("open", open, choke: 1), slot("closed", closed, choke: 1)])
        ring.producer.push(ControlMessage(frame: 0, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(ControlMessage(frame: 1000, .voiceTrigger(voice: 1, velocity: 1)))
        let out = Fixtures.run(engine, sizes: [256], periods: 10).left
        XCTAssertEqual(out[999], 0.5)
        XCTAssertEqual(out[1000 + SampleVoice.chokeFrames + 10], 0, "faded out")
        let fade = out[1001..<(1000 + SampleVoice.chokeFrames)]
        XCTAssertTrue(zip(fade, fade.dropFirst()).allSatisfy { $0 >= $1 }, "a ramp, not a cut")
    }

    func testSwappingAClipLetsSoundingNotesFinish() {
        let first = SampleBuffer(channelData: [[Float](repeating: 1, count: 1200)], sampleRate: 48_000)
        let second = SampleBuffer(channelData: [[Float](repeating: 0.25, count: 1000)], sampleRate: 48_000)
        let voice = SampleVoice(sample: first)
        var released: [SampleBuffer] = []
        voice.trigger(atFrame: 0, velocity: 1)
        var left = [Float](repeating: 0, count: 500), right = left
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in voice.render(left: l.baseAddress!, right: r.baseAddress!, frames: 500) } }
        XCTAssertTrue(voice.swapClip(.passRetained(second)) { released.append($0.takeRetainedValue()) })
        voice.trigger(atFrame: 0, velocity: 1)
        left = [Float](repeating: 0, count: 500)
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in voice.render(left: l.baseAddress!, right: r.baseAddress!, frames: 500) } }
        XCTAssertEqual(left[0], 1.25, "the old note goes on with the old clip, the new one plays the new clip")
        XCTAssertEqual(left[499], 1.25)
        XCTAssertTrue(released.isEmpty, "the old clip is still sounding")
        voice.reclaimRetiring { released.append($0.takeRetainedValue()) }
        XCTAssertTrue(released.isEmpty)
        left = [Float](repeating: 0, count: 500)
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in voice.render(left: l.baseAddress!, right: r.baseAddress!, frames: 500) } }
        XCTAssertEqual(left[0], 1.25)
        XCTAssertEqual(left[300], 0.25, "the old note ended with its clip")
        voice.reclaimRetiring { released.append($0.takeRetainedValue()) }
        XCTAssertTrue(released.count == 1 && released[0] === first, "handed back once no note needs it")
    }

    func testPulsonifyPresetHasEverySwitch() throws {
        let preset = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("pulsonify").path)
        let names = Set(preset.voices.map(\.definition.name))
        for name in ["arpeggio", "maraca", "drips", "bells", "snap", "brush", "paradiddle", "shuffle", "cramp_roll", "flap",
                     "uke", "singing", "drum1", "drum2", "snare1", "snare2"] {
            XCTAssertTrue(names.contains(name), name)
        }
        let uke = preset.voices.first { $0.definition.name == "uke" }!
        XCTAssertEqual(uke.definition.kind, .convolution)
        XCTAssertTrue(uke.sounds[0].path.hasSuffix("presets/sounds/uke.wav"))
        XCTAssertTrue(uke.file.hasSuffix("presets/voices/convolution.yaml"), "defined once, included")
        let engine = try EngineGraph.build(preset: preset, sampleRate: 48_000, maxFrames: 256)
        XCTAssertEqual(engine.handle.voiceNames.count, preset.voices.count)
    }
}

final class DropoutAndRegionTests: XCTestCase {
    func testAHeartDropoutFadesHeartVoicesAndTheReturnBringsThemBack() {
        let click = ClickVoice()
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = Fixtures.engine(sampleRate: 48_000, maxFrames: 256,
                                    slots: [VoiceSlot(name: "c", voice: click, enabled: true, gain: 1, pan: 0, rate: BeatRate(subdivision: 4),
                                                      followsHeart: true, silenced: false)],
                                    noteVoices: [:], sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 120)))            // a click every 6 000 frames
        ring.producer.push(ControlMessage(frame: 48_000, .heartPresence(false)))  // fades over one second
        ring.producer.push(ControlMessage(frame: 144_000, .heartPresence(true)))
        let out = Fixtures.run(engine, sizes: [256], periods: 800).left
        XCTAssertEqual(out[42_000], 1, "before the dropout")
        XCTAssertLessThan(out[72_000], 0.6, "fading")
        XCTAssertEqual(out[120_000], 0, "faded out; the clock keeps its tempo")
        XCTAssertEqual(out[198_000], 1, "back after the heart returns")
        XCTAssertEqual(engine.hearts.clock(0).bpm, 120)
    }

    func testTheFadeTakesThePresetsFadeSeconds() {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = Fixtures.engine(sampleRate: 48_000, maxFrames: 256,
                                    slots: [VoiceSlot(name: "c", voice: ClickVoice(), enabled: true, gain: 1, pan: 0, rate: BeatRate(subdivision: 4),
                                                      followsHeart: true, silenced: false)],
                                    noteVoices: [:], sources: [ring]) { $0.heartFadeSeconds = 2 }
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 120)))             // a click every 6 000 frames
        ring.producer.push(ControlMessage(frame: 48_128, .heartPresence(false)))   // at a period start
        let out = Fixtures.run(engine, sizes: [256], periods: 800).left
        // Linear over 2 s from frame 48 128: the level steps down at each later period's start,
        // 256/96 000 a period, so a click meets the fraction of the fade left (within one step:
        // a click on a period's first frame meets the gain slewing to the new step).
        for frame in stride(from: 54_000, through: 144_000, by: 6_000) {
            let periodsFaded = Float((frame - 48_128) / 256)
            XCTAssertEqual(out[frame], max(0, 1 - periodsFaded * 256 / 96_000), accuracy: 0.003, "at \(frame)")
        }
        XCTAssertEqual(out[150_000], 0)
    }

    func testRegionsFromThePresetAndMidiNotes() throws {
        let folder = try TemporaryFolder("regions").path
        try """
        voices:
          - {name: kick, kind: click, on_beat: false}
          - {name: snare, kind: click, on_beat: false}
        regions: {right-down: kick, left-left: snare}
        midi_regions: {36: right-down}
        dropout: {seconds: 3, action: fade}
        """.write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        let preset = try LoadedPreset.load(path: folder)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: preset, sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        XCTAssertEqual(engine.handle.regionNames, ["left-left", "right-down"])
        XCTAssertEqual(preset.dropoutRule.seconds, 3)
        XCTAssertTrue(preset.dropoutRule.fades)
        ring.producer.push(ControlMessage(frame: 10, .regionHit(region: 0, velocity: 0.5)))
        ring.producer.push(ControlMessage(frame: 20, .regionHit(region: 1, velocity: 1)))
        let out = Fixtures.run(engine, sizes: [256], periods: 1).left
        XCTAssertEqual(out[10], 0.5)
        XCTAssertEqual(out[20], 1)
        try "voices:\n  - {name: kick, kind: click}\nregions: {up: tuba}\n".write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try EngineGraph.build(preset: LoadedPreset.load(path: folder), sampleRate: 48_000, maxFrames: 256)) {
            XCTAssertTrue("\($0)".contains(":3: regions.up: no voice named 'tuba'"), "\($0)")
        }
    }
}
