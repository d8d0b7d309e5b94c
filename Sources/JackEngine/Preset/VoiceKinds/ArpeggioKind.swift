import Voices

extension Preset.VoiceKind {
    public static let arpeggio = Preset.VoiceKind("arpeggio")
}

/// PulSonify's arpeggio: a synthesized note per step through a chord progression.
struct ArpeggioKind: VoiceKindDescriptor {
    let kind = Preset.VoiceKind.arpeggio
    let summary = "a synthesized arpeggio through a chord progression, one note per firing"
    let fields = [
        VoiceField("chords", .texts, default: "[C, G, Am, F]", "chord names like C, G, Am, F#m, Bb7, Cmaj7"),
        VoiceField("order", .choice(ArpeggioVoice.Order.allCases.map(\.rawValue)), default: "up", "the order of a chord's notes"),
        VoiceField("octaves", .whole(1...4), default: "1", "octaves the figure spans"),
        VoiceField("gate", .number(0.05...1), default: "0.8", "fraction of a step each note is held"),
        VoiceField("steps_per_chord", .whole(1...64), default: "4", "steps before the next chord"),
        VoiceField("waveform", .choice(ArpeggioVoice.Waveform.allCases.map(\.rawValue)), default: "saw", "the oscillator"),
        VoiceField("base_note", .whole(24...96), default: "60", "MIDI note whose octave the chords start in"),
        VoiceField("instrument", .text, "an lv2 voice of this preset that plays the notes instead of the oscillators"),
    ]

    func check(_ voice: LoadedVoice) throws {
        if let chords = voice.definition.option("chords")?.texts, ArpeggioVoice.Settings.parse(chords, baseNote: 60) == nil {
            throw voice.error("chords", "\(chords) are not chord names like C, G, Am, F#m, Bb7")
        }
    }

    func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        let definition = voice.definition
        var settings = ArpeggioVoice.Settings()
        let base = definition.option("base_note")?.whole ?? 60
        settings.chords = ArpeggioVoice.Settings.parse(definition.option("chords")?.texts ?? ["C", "G", "Am", "F"], baseNote: base)!
        settings.order = definition.option("order")?.text.flatMap(ArpeggioVoice.Order.init(rawValue:)) ?? .up
        settings.octaves = definition.option("octaves")?.whole ?? 1
        settings.gate = definition.option("gate")?.number ?? 0.8
        settings.stepsPerChord = definition.option("steps_per_chord")?.whole ?? 4
        settings.waveform = definition.option("waveform")?.text.flatMap(ArpeggioVoice.Waveform.init(rawValue:)) ?? .saw
        let arpeggio = ArpeggioVoice(settings: settings)
        arpeggio.instrument = try context.instrument(voice)
        return arpeggio
    }

    var workouts: [[String: VoiceOption]] { [["order": .text("random"), "octaves": .whole(3)]] }
}
