/// One port of a hosted plugin, as the host connects it.
package struct PluginPort: Sendable {
    /// `event`: the old LV2 event extension; `unknown`: a type pulsejack cannot connect. A plugin
    /// with either, unless `optional`, is listed but not hosted.
    package enum Kind: Sendable, Equatable { case audio, control, atom, cv, event, unknown }

    package var index: UInt32
    package var symbol: String
    package var name: String
    package var kind: Kind
    package var isInput: Bool
    /// `lv2:connectionOptional`: it may stay unconnected.
    var optional = false
    /// Control ports: the range and default (lilv's; NaN where the plugin gives none).
    package var minimum: Float = .nan
    package var maximum: Float = .nan
    var defaultValue: Float = .nan
    /// Atom and event ports: whether they carry MIDI.
    var carriesMIDI = false

    /// The range as a person reads it, for errors.
    var rangeDescription: String {
        guard !minimum.isNaN, !maximum.isNaN else { return "any value" }
        return "\(minimum.plainText)…\(maximum.plainText)"
    }

    /// A range bound or default as lilv gives it: nil where the plugin gives none.
    static func given(_ value: Float) -> Float? { value.isNaN ? nil : value }

    func accepts(_ value: Float) -> Bool {
        value.isFinite && (minimum.isNaN || value >= minimum) && (maximum.isNaN || value <= maximum)
    }
}
