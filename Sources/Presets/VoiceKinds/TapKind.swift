import Voices

extension Preset.VoiceKind {
    public static let tap = Preset.VoiceKind("tap")
}

/// Tap dance: a choreography of steps (brush, paradiddle, shuffle …) played on toe, heel and scuff sounds.
package struct TapKind: VoiceKindDescriptor {
    package let kind = Preset.VoiceKind.tap
    package let summary = "a tap-dance figure per firing, from toe, heel and scuff sounds"
    package let fields = [
        VoiceField("choreography", .texts, default: .texts([TapStep.brush.rawValue]),
                   "steps played in turn, one per firing: \(TapStep.allCases.map(\.rawValue).joined(separator: ", "))"),
        VoiceField("toe", .sound, "the toe tap"),
        VoiceField("heel", .sound, "the heel drop"),
        VoiceField("scuff", .sound, "the scuff"),
        VoiceField("instrument", .text, "an lv2 voice of this preset that plays the steps instead of the three sounds"),
        VoiceField("instrument_notes", .numbers, default: .numbers([42, 36, 38]), "the MIDI notes of toe, heel and scuff on the instrument"),
    ]

    package func requiredSounds(_ voice: Preset.VoiceDefinition) -> [String] {
        voice.option("instrument") == nil ? ["toe", "heel", "scuff"] : []
    }

    package func check(_ voice: LoadedVoice) throws {
        if let notes = voice.definition.option("instrument_notes")?.numbers,
           notes.count != 3 || !notes.allSatisfy({ $0 == $0.rounded() && (0...127).contains($0) }) {
            throw voice.error("instrument_notes", "\(notes) is not three MIDI notes 0…127 (toe, heel, scuff)")
        }
        guard let steps = voice.definition.option("choreography")?.texts else { return }
        if steps.isEmpty { throw voice.error("choreography", "an empty choreography") }
        for (index, step) in steps.enumerated() where TapStep(rawValue: step) == nil {
            throw voice.error("choreography[\(index)]",
                              "'\(step)' is not a step (known: \(TapStep.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
    }

    package func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        let choreography = texts("choreography", of: voice).compactMap(TapStep.init(rawValue:))
        if let instrument = try context.instrument(voice) {
            return TapDanceVoice(choreography: choreography, instrument: instrument,
                                 notes: numbers("instrument_notes", of: voice).map { Int($0) })
        }
        return TapDanceVoice(choreography: choreography,
                      toe: try context.sample(voice, "toe"), heel: try context.sample(voice, "heel"),
                      scuff: try context.sample(voice, "scuff"))
    }

    package var workouts: [[String: VoiceOption]] { [["choreography": .texts(TapStep.allCases.map(\.rawValue))]] }

    package func parameters(of voice: any Voice) -> [String: VoiceOption] {
        (voice as? TapDanceVoice).map { ["choreography": .texts($0.choreography.map(\.rawValue))] } ?? [:]
    }
}
