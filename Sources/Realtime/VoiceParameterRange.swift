/// The ranges of the parameters every voice has, in one place: the preset's validation, the
/// OSC routes and the voice-kind listing all read these.
public enum VoiceParameterRange {
    /// Linear gain.
    public static let gain: ClosedRange<Double> = 0...4
    /// Equal-power pan, hard left to hard right.
    public static let pan: ClosedRange<Double> = -1...1
    /// Fire on every Nth beat.
    public static let every: ClosedRange<Int> = 1...16
    /// Pulses per fired beat (each divides `BeatRate.pulsesPerBeat`).
    public static let subdivisions: [Int] = [1, 2, 3, 4]
    public static let velocity: ClosedRange<Double> = 0...1
    public static let chokeGroup: ClosedRange<Int> = 1...16
    public static let midiNote: ClosedRange<Int> = 0...127
    public static let midiChannel: ClosedRange<Int> = 1...16
    /// Seconds from a MIDI out note-on to its note-off.
    public static let midiOutLength: ClosedRange<Double> = 0.001...60

    /// "0…4", "−1…1": a range as the errors print it.
    public static func describe(_ range: ClosedRange<Double>) -> String {
        func plain(_ value: Double) -> String {
            let text = value.plainText
            return text.hasPrefix("-") ? "−" + text.dropFirst() : text
        }
        return "\(plain(range.lowerBound))…\(plain(range.upperBound))"
    }
}
