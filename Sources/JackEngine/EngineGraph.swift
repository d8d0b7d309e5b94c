import Control
import Voices

/// Builds the real-time engine from a preset: loads every sound at the engine's rate and creates
/// the voices. Control thread, before activation: everything that allocates happens here.
public enum EngineGraph {
    public static func build(preset loaded: LoadedPreset, sampleRate: Int, maxFrames: Int,
                             solo: String? = nil,
                             firedReports: SPSCRing<FiredVoice>.Producer? = nil) throws -> RealtimeEngine {
        let voices = loaded.preset.voices
        if let solo, !voices.contains(where: { $0.name == solo }) {
            throw InputError(file: loaded.file, field: "voices",
                             "no voice named '\(solo)' to solo (voices: \(voices.map(\.name).joined(separator: ", ")))")
        }
        var slots: [VoiceSlot] = []
        var notes: [Int: Int] = [:]
        // Voices that play the same file share one decoded buffer (it is immutable).
        var samples: [String: SampleBuffer] = [:]
        for (index, definition) in voices.enumerated() {
            let voice: any Voice
            switch definition.kind {
            case .click:
                voice = ClickVoice()
            case .sample:
                let path = loaded.soundPath(definition)!
                do {
                    let sample = try samples[path] ?? SampleFile.load(path: path, sampleRate: sampleRate)
                    samples[path] = sample
                    voice = SampleVoice(sample: sample, maxPolyphony: definition.polyphony ?? 16)
                } catch let error as InputError {
                    throw InputError(file: loaded.file, line: loaded.line("voices[\(index)].file"),
                                     field: "voices[\(index)].file", error.description)
                }
            }
            slots.append(VoiceSlot(name: definition.name, voice: voice, enabled: definition.enabled ?? true,
                                   gain: definition.gain ?? 1, pan: definition.pan ?? 0, rate: definition.rate,
                                   followsHeart: definition.onBeat ?? true,
                                   silenced: solo != nil && solo != definition.name))
            if let note = definition.midiNote { notes[note] = index }
        }
        return RealtimeEngine(sampleRate: sampleRate, maxFrames: maxFrames, slots: slots, noteVoices: notes,
                              regionVoices: [], firedReports: firedReports)
    }
}
