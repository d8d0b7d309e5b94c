/// One port of a hosted plugin, as the host connects it.
struct PluginPort: Sendable {
    enum Kind: Sendable, Equatable { case audio, control, atom, cv }

    var index: UInt32
    var symbol: String
    var kind: Kind
    var isInput: Bool
    /// Control ports: the range and default (lilv's; NaN where the plugin gives none).
    var minimum: Float = .nan
    var maximum: Float = .nan
    var defaultValue: Float = .nan
    /// Atom ports: whether they carry MIDI.
    var carriesMIDI = false

    /// The range as a person reads it, for errors.
    var rangeDescription: String {
        guard !minimum.isNaN, !maximum.isNaN else { return "any value" }
        return "\(VoiceField.plain(Double(minimum)))…\(VoiceField.plain(Double(maximum)))"
    }

    func accepts(_ value: Float) -> Bool {
        value.isFinite && (minimum.isNaN || value >= minimum) && (maximum.isNaN || value <= maximum)
    }
}
