/// Numbers that come from outside — a peer, a file, a packet, a user — on their way in. They are
/// converted only through these checks, so that a NaN, an infinity or an absurd value is refused
/// (and counted where it came from) instead of trapping in a conversion or poisoning a filter.
public enum OutsideNumber {
    /// The largest magnitude a value from outside may have (a signal, a sample in µV): beyond it a
    /// value is absurd whatever it measures. Its square stays finite, and so does its `Float`.
    public static let largestValue = 1e12

    /// Whether `value` may reach the engine.
    @inlinable
    public static func isPlausible(_ value: Double) -> Bool { value.isFinite && abs(value) <= largestValue }
}

extension Int64 {
    /// `value` rounded to the nearest whole number; nil when it is not finite or lies beyond ±4·10¹⁸
    /// (a frame or a count worked out from a number from outside: never a trap).
    @inlinable
    public init?(checkedRounding value: Double) {
        guard value.isFinite, abs(value) < 4e18 else { return nil }
        self.init(value.rounded())
    }
}

extension Int {
    /// `value` rounded to the nearest whole number; nil when it is not finite or lies beyond ±4·10¹⁸.
    @inlinable
    public init?(checkedRounding value: Double) {
        guard let whole = Int64(checkedRounding: value) else { return nil }
        self.init(whole)
    }
}
