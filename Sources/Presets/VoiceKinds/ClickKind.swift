import Voices

extension Preset.VoiceKind {
    public static let click = Preset.VoiceKind("click")
}

/// A synthesized click: no sound file, nothing to set.
package struct ClickKind: VoiceKindDescriptor {
    package let kind = Preset.VoiceKind.click
    package let summary = "a short synthesized click on each firing (no sound file)"
    package let fields: [VoiceField] = []

    package func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice { ClickVoice() }

    package func parameters(of voice: any Voice) -> [String: VoiceOption] { [:] }
}
