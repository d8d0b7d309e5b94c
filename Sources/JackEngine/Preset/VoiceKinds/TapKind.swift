import Voices

extension Preset.VoiceKind {
    public static let tap = Preset.VoiceKind("tap")
}

/// Tap dance: a choreography of steps (brush, paradiddle, shuffle …) played on toe, heel and scuff sounds.
struct TapKind: VoiceKindDescriptor {
    let kind = Preset.VoiceKind.tap
    let summary = "a tap-dance figure per firing, from toe, heel and scuff sounds"
    let fields = [
        VoiceField("choreography", .texts, default: "[brush]",
                   "steps played in turn, one per firing: \(TapStep.allCases.map(\.rawValue).joined(separator: ", "))"),
        VoiceField("toe", .sound, "the toe tap"),
        VoiceField("heel", .sound, "the heel drop"),
        VoiceField("scuff", .sound, "the scuff"),
    ]

    func check(_ voice: LoadedVoice) throws {
        guard let steps = voice.definition.option("choreography")?.texts else { return }
        if steps.isEmpty { throw voice.error("choreography", "an empty choreography") }
        for (index, step) in steps.enumerated() where TapStep(rawValue: step) == nil {
            throw voice.error("choreography[\(index)]",
                              "'\(step)' is not a step (known: \(TapStep.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
    }

    func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        TapDanceVoice(choreography: (voice.definition.option("choreography")?.texts ?? ["brush"]).compactMap(TapStep.init(rawValue:)),
                      toe: try context.sample(voice, "toe"), heel: try context.sample(voice, "heel"),
                      scuff: try context.sample(voice, "scuff"))
    }

    var workouts: [[String: VoiceOption]] { [["choreography": .texts(TapStep.allCases.map(\.rawValue))]] }
}
