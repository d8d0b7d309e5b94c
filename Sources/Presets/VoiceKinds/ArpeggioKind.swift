import Voices

extension Preset.VoiceKind {
    public static let arpeggio = Preset.VoiceKind("arpeggio")
}

/// PulSonify's arpeggio: a synthesized note per step through a chord progression.
package struct ArpeggioKind: VoiceKindDescriptor {
    /// The voice's own defaults, which the fields offer: written once, in `ArpeggioVoice.Settings`.
    private static let voice = ArpeggioVoice.Settings()

    package let kind = Preset.VoiceKind.arpeggio
    package let summary = "a synthesized arpeggio through a chord progression, one note per firing"
    package let fields = [
        VoiceField("chords", .texts, default: .texts(ArpeggioVoice.Settings.defaultChordNames), "chord names like C, G, Am, F#m, Bb7, Cmaj7"),
        VoiceField("order", .choice(ArpeggioVoice.Order.allCases.map(\.rawValue)), default: .text(Self.voice.order.rawValue), "the order of a chord's notes"),
        VoiceField("octaves", .whole(1...4), default: .whole(Self.voice.octaves), "octaves the figure spans"),
        VoiceField("gate", .number(0.05...1), default: .number(Self.voice.gate), "fraction of a step each note is held"),
        VoiceField("steps_per_chord", .whole(1...64), default: .whole(Self.voice.stepsPerChord), "steps before the next chord"),
        VoiceField("waveform", .choice(ArpeggioVoice.Waveform.allCases.map(\.rawValue)), default: .text(Self.voice.waveform.rawValue), "the oscillator"),
        VoiceField("base_note", .whole(24...96), default: .whole(ArpeggioVoice.Settings.defaultBaseNote), "MIDI note whose octave the chords start in"),
        VoiceField("instrument", .text, "an lv2 voice of this preset that plays the notes instead of the oscillators"),
    ]

    package func check(_ voice: LoadedVoice) throws {
        if let chords = voice.definition.option("chords")?.texts, ArpeggioVoice.Settings.parse(chords, baseNote: whole("base_note", of: voice)) == nil {
            throw voice.error("chords", "\(chords) are not chord names like C, G, Am, F#m, Bb7")
        }
    }

    package func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        var settings = ArpeggioVoice.Settings()
        // Checked by validation: the chords parse, the choices are cases.
        settings.chords = ArpeggioVoice.Settings.parse(texts("chords", of: voice), baseNote: whole("base_note", of: voice))!
        settings.order = ArpeggioVoice.Order(rawValue: text("order", of: voice))!
        settings.octaves = whole("octaves", of: voice)
        settings.gate = number("gate", of: voice)
        settings.stepsPerChord = whole("steps_per_chord", of: voice)
        settings.waveform = ArpeggioVoice.Waveform(rawValue: text("waveform", of: voice))!
        let arpeggio = ArpeggioVoice(settings: settings)
        arpeggio.instrument = try context.instrument(voice)
        return arpeggio
    }

    package var workouts: [[String: VoiceOption]] { [["order": .text("random"), "octaves": .whole(3)]] }

    package func parameters(of voice: any Voice) -> [String: VoiceOption] {
        guard let settings = (voice as? ArpeggioVoice)?.settings else { return [:] }
        return ["order": .text(settings.order.rawValue), "octaves": .whole(settings.octaves), "gate": .number(settings.gate),
                "steps_per_chord": .whole(settings.stepsPerChord), "waveform": .text(settings.waveform.rawValue)]
    }
}
