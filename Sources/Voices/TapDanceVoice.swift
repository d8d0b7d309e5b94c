/// Tap dance on the heartbeat: a choreography picks a step for each fired beat, and the step's
/// hits play on its pulses, toe, heel or scuff sounds.
public final class TapDanceVoice: PulseVoice {
    public let choreography: [TapStep]
    private let sounds: [SampleVoice]
    /// hitTable[step × 12 + pulse] = (sound index + 1, velocity), 0 for no hit; read-only on the process thread.
    private let hitTable: [(sound: Int, velocity: Float)]
    private var stepIndex = -1
    private var beatsDanced: Int64 = 0
    /// With an instrument: the MIDI notes of toe, heel and scuff it plays, each held `hitFrames`.
    private let instrument: (any NoteSink)?
    private let instrumentNotes: [Int]
    private var hitFrames = 4800

    /// Control thread. `sounds` holds the toe, heel and scuff samples, in that order.
    public init(choreography: [TapStep], toe: SampleBuffer, heel: SampleBuffer, scuff: SampleBuffer) {
        precondition(!choreography.isEmpty)
        self.choreography = choreography
        sounds = [toe, heel, scuff].map { SampleVoice(sample: $0, maxPolyphony: 8) }
        instrument = nil
        instrumentNotes = []
        hitTable = Self.hits(choreography)
    }

    /// Control thread. The steps play `notes` (toe, heel, scuff) on `instrument`.
    public init(choreography: [TapStep], instrument: any NoteSink, notes: [Int]) {
        precondition(!choreography.isEmpty && notes.count == 3)
        self.choreography = choreography
        sounds = []
        self.instrument = instrument
        instrumentNotes = notes
        hitTable = Self.hits(choreography)
    }

    private static func hits(_ choreography: [TapStep]) -> [(sound: Int, velocity: Float)] {
        var table = [(sound: Int, velocity: Float)](repeating: (0, 0), count: 12 * choreography.count)
        for (index, step) in choreography.enumerated() {
            for hit in step.hits { table[index * 12 + hit.pulse] = (hit.sound.rawValue + 1, hit.velocity) }
        }
        return table
    }

    public var wantsEveryPulse: Bool { true }

    public func prepare(sampleRate: Int, maxFrames: Int) {
        hitFrames = sampleRate / 10
        for sound in sounds { sound.prepare(sampleRate: sampleRate, maxFrames: maxFrames) }
    }

    /// Real-time safe. A direct trigger plays the scuff.
    public func trigger(atFrame offset: Int, velocity: Float) {
        if let instrument { return instrument.play(key: instrumentNotes[2], velocity: velocity, lengthFrames: hitFrames) }
        sounds[TapStep.Sound.scuff.rawValue].trigger(atFrame: offset, velocity: velocity)
    }

    /// Real-time safe.
    public func pulse(beat: Int64, pulse: Int, stepFrames: Double, velocity: Float) -> Bool {
        if pulse == 0 {
            stepIndex = Int(beatsDanced % Int64(choreography.count))
            beatsDanced += 1
        }
        guard stepIndex >= 0, pulse >= 0, pulse < 12 else { return false }
        let hit = hitTable[stepIndex * 12 + pulse]
        guard hit.sound > 0 else { return false }
        if let instrument {
            instrument.play(key: instrumentNotes[hit.sound - 1], velocity: velocity * hit.velocity, lengthFrames: hitFrames)
            return true
        }
        sounds[hit.sound - 1].trigger(atFrame: 0, velocity: velocity * hit.velocity)
        return true
    }

    /// Real-time safe.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        for index in 0..<sounds.count { sounds[index].render(left: left, right: right, frames: frames) }
    }

    /// Real-time safe.
    public func silence() { for index in 0..<sounds.count { sounds[index].silence() } }

    /// Real-time safe.
    public var isSounding: Bool { !sounds.isEmpty && (sounds[0].isSounding || sounds[1].isSounding || sounds[2].isSounding) }

    /// Real-time safe.
    public func choke() { for index in 0..<sounds.count { sounds[index].choke() } }
}
