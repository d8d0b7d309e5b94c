import Control
import Voices

/// Builds the real-time engine from a preset: loads every sound at the engine's rate and creates
/// the voices. Control thread, before activation: everything that allocates happens here.
public enum EngineGraph {
    /// `offline`: dense convolution waits for its workers each block (deterministic renders).
    /// `libraries`: track libraries already scanned, by folder (the rest are scanned here).
    public static func build(preset loaded: LoadedPreset, sampleRate: Int, maxFrames: Int,
                             solo: String? = nil, offline: Bool = false,
                             firedReports: SPSCRing<FiredVoice>.Producer? = nil,
                             libraries: [String: TrackLibrary] = [:]) throws -> RealtimeEngine {
        let voices = loaded.voices
        if let solo, !voices.contains(where: { $0.definition.name == solo }) {
            throw InputError(file: loaded.file, field: "voices",
                             "no voice named '\(solo)' to solo (voices: \(voices.map(\.definition.name).joined(separator: ", ")))")
        }
        var slots: [VoiceSlot] = []
        var notes: [Int: Int] = [:]
        // Voices that play the same file share one decoded buffer (it is immutable).
        var samples: [String: SampleBuffer] = [:]
        func sample(_ voice: LoadedVoice, _ field: String) throws -> SampleBuffer {
            let path = voice.sounds.first { $0.field == field }!.path
            if let loaded = samples[path] { return loaded }
            do {
                let buffer = try SampleFile.load(path: path, sampleRate: sampleRate)
                samples[path] = buffer
                return buffer
            } catch let error as InputError {
                throw voice.error(field, error.description)
            }
        }
        for (index, voice) in voices.enumerated() {
            let definition = voice.definition
            let built: any Voice
            switch definition.kind {
            case .click:
                built = ClickVoice()
            case .sample:
                built = SampleVoice(sample: try sample(voice, "file"), maxPolyphony: definition.polyphony ?? 16)
            case .tap:
                built = TapDanceVoice(choreography: (definition.choreography ?? ["brush"]).compactMap(TapStep.init(rawValue:)),
                                      toe: try sample(voice, "toe"), heel: try sample(voice, "heel"),
                                      scuff: try sample(voice, "scuff"))
            case .arpeggio:
                var settings = ArpeggioVoice.Settings()
                let base = definition.baseNote ?? 60
                settings.chords = ArpeggioVoice.Settings.parse(definition.chords ?? ["C", "G", "Am", "F"], baseNote: base)!
                settings.order = definition.order.flatMap(ArpeggioVoice.Order.init(rawValue:)) ?? .up
                settings.octaves = definition.octaves ?? 1
                settings.gate = definition.gate ?? 0.8
                settings.stepsPerChord = definition.stepsPerChord ?? 4
                settings.waveform = definition.waveform.flatMap(ArpeggioVoice.Waveform.init(rawValue:)) ?? .saw
                built = ArpeggioVoice(settings: settings)
            case .track:
                let stretch = definition.stretchRange.map { $0[0]...$0[1] } ?? 0.5...2
                if let library = voice.libraryPath {
                    // The first track of the library starts; the mood picks the ones after it.
                    guard let first = try (libraries[library] ?? TrackLibrary.scan(folder: library)).tracks.first else {
                        throw voice.error("library", "no sound files in \(library)")
                    }
                    built = TrackPlayerVoice(track: try SampleFile.load(path: first.path, sampleRate: sampleRate),
                                             trackBPM: first.bpm ?? definition.trackBPM, ratioRange: stretch)
                } else {
                    built = TrackPlayerVoice(track: try sample(voice, "file"), trackBPM: definition.trackBPM, ratioRange: stretch)
                }
            case .convolution:
                let clip = try sample(voice, "file")
                if definition.input == true {
                    do {
                        built = try DenseConvolutionVoice(clip: clip, quantum: maxFrames, waitsForWorkers: offline)
                    } catch {
                        throw voice.error("input", "\(error)")
                    }
                } else {
                    let shape: HeartbeatShape = definition.shape == "lub-dub"
                        ? .lubDub(delayFrames: Int(((definition.lubDubDelay ?? 0.3) * Double(sampleRate)).rounded()),
                                  gain: definition.lubDubGain ?? 0.6)
                        : .single
                    built = SparseConvolutionVoice(clip: clip, shape: shape, maxCopies: definition.polyphony ?? 64)
                }
            }
            slots.append(VoiceSlot(name: definition.name, voice: built,
                                   // Soloing a voice means hearing it, muted in the preset or not.
                                   enabled: solo == definition.name || ((definition.enabled ?? true) && !(definition.mute ?? false)),
                                   gain: definition.gain ?? 1, pan: definition.pan ?? 0, rate: definition.rate,
                                   followsHeart: (definition.onBeat ?? true) && definition.input != true,
                                   silenced: solo != nil && solo != definition.name,
                                   velocity: definition.velocity ?? 1, chokeGroup: definition.choke ?? 0))
            slots[slots.count - 1].midiOut = (channel: UInt8((definition.midiOutChannel ?? 1) - 1),
                                              key: UInt8(definition.midiOutNote ?? definition.midiNote ?? min(36 + index, 127)),
                                              length: max(1, Int64(((definition.midiOutLength ?? 0.1) * Double(sampleRate)).rounded())))
            if let note = definition.midiNote { notes[note] = index }
        }
        let regions = try loaded.regionTable()
        let engine = RealtimeEngine(sampleRate: sampleRate, maxFrames: maxFrames, slots: slots, noteVoices: notes,
                                    regionVoices: regions.voices, firedReports: firedReports)
        engine.regionNames = regions.names
        engine.heartFadeSeconds = Float(loaded.preset.dropout?.fadeSeconds ?? 1)
        if let master = loaded.preset.master {
            engine.configureMaster(gainDB: master.gainDB ?? 0, ceilingDB: master.limiter == true ? master.ceilingDB ?? -1 : nil,
                                   releaseMS: master.releaseMS ?? 50)
        }
        for mapping in try loaded.regionNotes() { engine.mapNoteToRegion(mapping.note, region: mapping.region) }
        let performance = try loaded.performanceSettings()
        engine.configurePerformance(skipRegion: performance.skipRegion, modeVoices: performance.modeVoices)
        for change in try loaded.controlChanges() {
            engine.mapControlChange(change.controller, voice: change.voice, parameter: change.parameter)
        }
        return engine
    }
}
