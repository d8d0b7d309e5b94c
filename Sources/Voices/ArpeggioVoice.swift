import Foundation
import Realtime

/// A synthesized arpeggio: one note per step through a chord progression (default C–G–Am–F),
/// up, down, up-down or random over a range of octaves, each note a band-limited oscillator
/// (sine, or PolyBLEP saw and square) under an ADSR envelope, held for `gate` of its step.
public final class ArpeggioVoice: PulseVoice {
    public enum Order: String, CaseIterable, Sendable { case up, down, upDown = "up-down", random }
    public enum Waveform: String, CaseIterable, Sendable { case sine, saw, square }

    public struct Settings: Sendable {
        /// The progression and the octave it starts in unless a preset says otherwise.
        public static let defaultChordNames = ["C", "G", "Am", "F"]
        public static let defaultBaseNote = 60
        public var chords: [[Int]] = Self.parse(defaultChordNames, baseNote: defaultBaseNote)!
        public var order: Order = .up
        public var octaves = 1
        /// Fraction of a step the note is held before its release.
        public var gate = 0.8
        /// Steps before the progression moves to the next chord.
        public var stepsPerChord = 4
        public var waveform: Waveform = .saw
        public var attack = 0.005, decay = 0.12, sustain = 0.6, release = 0.15
        public var seed: UInt64 = 1
        public init() {}

        /// Chord names (C, Am, F#m, Bb, G7 …) as MIDI note triads (or tetrads) from `baseNote`'s octave.
        public static func parse(_ names: [String], baseNote: Int) -> [[Int]]? {
            let letters: [Character: Int] = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11]
            var chords: [[Int]] = []
            for name in names {
                var rest = Substring(name)
                guard let letter = rest.first, let pitch = letters[letter] else { return nil }
                rest = rest.dropFirst()
                var root = pitch
                if rest.first == "#" { root += 1; rest = rest.dropFirst() } else if rest.first == "b" { root -= 1; rest = rest.dropFirst() }
                var intervals = [0, 4, 7]
                if rest.hasPrefix("m") && !rest.hasPrefix("maj") { intervals = [0, 3, 7]; rest = rest.dropFirst() }
                if rest == "7" { intervals.append(10) } else if rest == "maj7" { intervals.append(11) } else if !rest.isEmpty { return nil }
                let base = baseNote - baseNote % 12
                chords.append(intervals.map { base + (root + 12) % 12 + $0 })
            }
            return chords.isEmpty ? nil : chords
        }
    }

    public let settings: Settings
    public static let maxNotes = 8

    private struct Note: BitwiseCopyable {
        var phase: Double
        var increment: Double
        var level: Double
        /// Frames left before the release starts (−1: releasing).
        var held: Int
        var velocity: Float
        var stage: Stage
    }

    private enum Stage: BitwiseCopyable { case attack, decay, sustain, release, done }

    /// The sounding notes: the first `active` of a fixed pool.
    private let notes = FixedBuffer<Note>(capacity: ArpeggioVoice.maxNotes,
                                          repeating: Note(phase: 0, increment: 0, level: 0, held: 0, velocity: 0, stage: .done))
    private var active = 0
    private var sampleRate = 48_000.0
    private var step: Int64 = 0
    private var random: UInt64
    /// Sorted pitches of each chord over the octave range: pitches[chord][index]; read-only on the process thread.
    private let pitches: [[Int]]
    private var attackStep = 0.0, decayStep = 0.0, releaseStep = 0.0

    /// The pitch of the last note started.
    public private(set) var lastPitch = -1
    /// When set (before activation), the notes play on this instrument instead of the oscillators.
    public var instrument: (any NoteSink)?

    public init(settings: Settings) {
        self.settings = settings
        random = settings.seed
        pitches = settings.chords.map { chord in
            (0..<max(1, settings.octaves)).flatMap { octave in chord.map { $0 + 12 * octave } }.sorted()
        }
    }


    public var wantsEveryPulse: Bool { false }

    public func prepare(sampleRate: Int, maxFrames: Int) {
        self.sampleRate = Double(sampleRate)
        attackStep = 1 / max(1, settings.attack * self.sampleRate)
        decayStep = (1 - settings.sustain) / max(1, settings.decay * self.sampleRate)
        releaseStep = 1 / max(1, settings.release * self.sampleRate)
    }

    /// Real-time safe. The pitch of step `step` (the sequence the order defines).
    public func pitch(forStep step: Int64) -> Int {
        let chord = pitches[Int((step / Int64(max(1, settings.stepsPerChord))) % Int64(pitches.count))]
        let count = Int64(chord.count)
        let index: Int64
        switch settings.order {
        case .up: index = step % count
        case .down: index = count - 1 - step % count
        case .upDown:
            let period = max(1, 2 * count - 2)
            let position = step % period
            index = position < count ? position : period - position
        case .random:
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            index = Int64((z ^ (z >> 31)) % UInt64(count))
        }
        return chord[Int(index)]
    }

    /// Real-time safe.
    public func pulse(beat: Int64, pulse: Int, stepFrames: Double, velocity: Float) -> Bool {
        let note = pitch(forStep: step)
        step += 1
        start(pitch: note, heldFrames: Int(stepFrames * settings.gate), velocity: velocity)
        return true
    }

    /// Real-time safe. A direct trigger plays the next step, held for a quarter second.
    public func trigger(atFrame offset: Int, velocity: Float) {
        _ = pulse(beat: 0, pulse: 0, stepFrames: sampleRate / 4 / settings.gate, velocity: velocity)
    }

    private func start(pitch: Int, heldFrames: Int, velocity: Float) {
        lastPitch = pitch
        if let instrument {
            instrument.play(key: pitch, velocity: velocity, lengthFrames: max(1, heldFrames))
            return
        }
        let frequency = 440 * pow(2, Double(pitch - 69) / 12)
        let note = Note(phase: 0, increment: frequency / sampleRate, level: 0, held: max(1, heldFrames),
                        velocity: velocity, stage: .attack)
        if active < Self.maxNotes {
            notes[active] = note
            active += 1
        } else {
            // Steal the quietest note.
            var quietest = 0
            for index in 1..<active where notes[index].level < notes[quietest].level { quietest = index }
            notes[quietest] = note
        }
    }

    /// PolyBLEP residual: rounds the corner of a discontinuity at phase 0 (band limiting).
    @inline(__always)
    private static func polyBLEP(_ t: Double, _ dt: Double) -> Double {
        if t < dt { let x = t / dt; return x + x - x * x - 1 }
        if t > 1 - dt { let x = (t - 1) / dt; return x * x + x + x + 1 }
        return 0
    }

    /// Real-time safe.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        var index = 0
        while index < active {
            var note = notes[index]
            for frame in 0..<frames {
                switch note.stage {
                case .attack:
                    note.level += attackStep
                    if note.level >= 1 { note.level = 1; note.stage = .decay }
                case .decay:
                    note.level -= decayStep
                    if note.level <= settings.sustain { note.level = settings.sustain; note.stage = .sustain }
                case .sustain: break
                case .release:
                    note.level -= releaseStep
                    if note.level <= 0 { note.level = 0; note.stage = .done }
                case .done: break
                }
                if note.stage != .release && note.stage != .done {
                    note.held -= 1
                    if note.held <= 0 { note.stage = .release }
                }
                if note.stage == .done { break }
                let t = note.phase, dt = note.increment
                var sample: Double
                switch settings.waveform {
                case .sine: sample = sin(2 * .pi * t)
                case .saw: sample = 2 * t - 1 - Self.polyBLEP(t, dt)
                case .square:
                    sample = (t < 0.5 ? 1 : -1) + Self.polyBLEP(t, dt) - Self.polyBLEP((t + 0.5).truncatingRemainder(dividingBy: 1), dt)
                }
                note.phase += dt
                if note.phase >= 1 { note.phase -= 1 }
                let value = Float(sample * note.level * 0.25) * note.velocity
                left[frame] += value
                right[frame] += value
            }
            if note.stage == .done {
                active -= 1
                notes[index] = notes[active]
            } else {
                notes[index] = note
                index += 1
            }
        }
    }

    /// Real-time safe.
    public func silence() { active = 0 }

    /// Real-time safe.
    public var isSounding: Bool { active > 0 }

    /// Real-time safe. Every note goes to a fast release.
    public func choke() {
        for index in 0..<active { notes[index].stage = .release }
    }
}
