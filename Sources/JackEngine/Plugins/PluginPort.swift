/// One port of a hosted plugin, as the host connects it.
struct PluginPort: Sendable {
    /// `event`: the old LV2 event extension; `unknown`: a type pulsejack cannot connect. A plugin
    /// with either, unless `optional`, is listed but not hosted.
    enum Kind: Sendable, Equatable { case audio, control, atom, cv, event, unknown }

    var index: UInt32
    var symbol: String
    var name: String
    var kind: Kind
    var isInput: Bool
    /// `lv2:connectionOptional`: it may stay unconnected.
    var optional = false
    /// Control ports: the range and default (lilv's; NaN where the plugin gives none).
    var minimum: Float = .nan
    var maximum: Float = .nan
    var defaultValue: Float = .nan
    /// Atom and event ports: whether they carry MIDI.
    var carriesMIDI = false

    /// The range as a person reads it, for errors.
    var rangeDescription: String {
        guard !minimum.isNaN, !maximum.isNaN else { return "any value" }
        return "\(VoiceField.plain(Double(minimum)))…\(VoiceField.plain(Double(maximum)))"
    }

    /// A range bound or default as lilv gives it: nil where the plugin gives none.
    static func given(_ value: Float) -> Float? { value.isNaN ? nil : value }

    func accepts(_ value: Float) -> Bool {
        value.isFinite && (minimum.isNaN || value >= minimum) && (maximum.isNaN || value <= maximum)
    }
}
