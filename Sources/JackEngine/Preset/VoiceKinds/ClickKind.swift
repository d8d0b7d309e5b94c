import Voices

extension Preset.VoiceKind {
    public static let click = Preset.VoiceKind("click")
}

/// A synthesized click: no sound file, nothing to set.
struct ClickKind: VoiceKindDescriptor {
    let kind = Preset.VoiceKind.click
    let summary = "a short synthesized click on each firing (no sound file)"
    let fields: [VoiceField] = []

    func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice { ClickVoice() }

    func parameters(of voice: any Voice) -> [String: VoiceOption] { [:] }
}
