import Voices

extension Preset.VoiceKind {
    public static let sample = Preset.VoiceKind("sample")
}

/// A one-shot sample (maraca, drips, bells, snap, drums): each firing starts a note.
package struct SampleKind: VoiceKindDescriptor {
    package let kind = Preset.VoiceKind.sample
    package let summary = "plays a sound file from the start on each firing (polyphonic one-shot)"
    package let fields = [
        VoiceField("file", .sound, "the sound file"),
        VoiceField("polyphony", .whole(1...256), default: .whole(SampleVoice.defaultPolyphony), "notes that can sound at once (the oldest is stolen)"),
    ]

    package func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        SampleVoice(sample: try context.sample(voice, "file"), maxPolyphony: whole("polyphony", of: voice))
    }

    package func parameters(of voice: any Voice) -> [String: VoiceOption] {
        (voice as? SampleVoice).map { ["polyphony": .whole($0.maxPolyphony)] } ?? [:]
    }
}
