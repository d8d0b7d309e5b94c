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
    package var defaultValue: Float = .nan
    /// Control ports: `lv2:integer`, `lv2:toggled`, and the scale points' values of an
    /// `lv2:enumeration` (empty otherwise).
    package var isInteger = false
    package var isToggled = false
    package var scalePoints: [Float] = []
    /// Atom and event ports: whether they carry MIDI.
    var carriesMIDI = false
    /// Atom ports: whether they take the host's time (`atom:supports time:Position`).
    var takesTime = false
    /// What was wrong with the range the plugin gave (then it counts as giving none).
    var rangeProblem: String?

    /// The range as a person reads it, for errors.
    var rangeDescription: String {
        guard !minimum.isNaN, !maximum.isNaN else { return "any value" }
        return "\(minimum.plainText)…\(maximum.plainText)"
    }

    /// A range bound or default as lilv gives it: nil where the plugin gives none.
    static func given(_ value: Float) -> Float? { value.isNaN ? nil : value }

    /// Control ports: a range bound beyond the float range, or a minimum above the maximum, is
    /// no range at all (said in `rangeProblem`).
    mutating func checkRange() {
        if !minimum.isNaN && !minimum.isFinite || !maximum.isNaN && !maximum.isFinite {
            rangeProblem = "port '\(symbol)' has a range beyond the float range (\(minimum.plainText)…\(maximum.plainText)); ignored"
            minimum = .nan
            maximum = .nan
        } else if !minimum.isNaN && !maximum.isNaN && minimum > maximum {
            rangeProblem = "port '\(symbol)' has its minimum \(minimum.plainText) above its maximum \(maximum.plainText); ignored"
            minimum = .nan
            maximum = .nan
        }
    }

    /// Control ports: the value it starts at, and what was wrong with the plugin's default. A
    /// default beyond the float range (lilv would make it ±Inf) is refused; one outside the range
    /// is clamped into it; none at all is the minimum, or 0.
    var checkedDefault: (value: Float, problem: String?) {
        let fallback = minimum.isNaN ? 0 : minimum
        var problems = rangeProblem.map { [$0] } ?? []
        var value = defaultValue
        if defaultValue.isNaN {
            value = fallback
        } else if !defaultValue.isFinite {
            problems.append("port '\(symbol)' has a default beyond the float range; it starts at \(fallback.plainText)")
            value = fallback
        } else if !accepts(defaultValue) {
            value = Self.clamped(defaultValue, minimum, maximum)
            problems.append("port '\(symbol)' has its default \(defaultValue.plainText) outside \(rangeDescription); it starts at \(value.plainText)")
        }
        return (value, problems.isEmpty ? nil : problems.joined(separator: "; "))
    }

    /// `value` within the bounds the plugin gives (NaN: none).
    static func clamped(_ value: Float, _ minimum: Float, _ maximum: Float) -> Float {
        var result = value
        if !minimum.isNaN { result = max(result, minimum) }
        if !maximum.isNaN { result = min(result, maximum) }
        return result
    }

    /// A saved or preset value for this port, checked: clamped into the range, refused (nil) when
    /// not finite; the problem said.
    func checked(_ value: Float) -> (value: Float?, problem: String?) {
        guard value.isFinite else { return (nil, "port '\(symbol)': \(value) is not a number it can take; kept at its current value") }
        guard accepts(value) else {
            let clamped = Self.clamped(value, minimum, maximum)
            return (clamped, "port '\(symbol)': \(value.plainText) is outside \(rangeDescription); clamped to \(clamped.plainText)")
        }
        return (value, nil)
    }

    func accepts(_ value: Float) -> Bool {
        value.isFinite && (minimum.isNaN || value >= minimum) && (maximum.isNaN || value <= maximum)
    }
}
