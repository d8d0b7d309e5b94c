import Foundation

/// JSON values written as text, for messages built 60 times a second for every page (a
/// JSONEncoder per message would cost more than the message). Strings go through JSONEncoder,
/// so escaping is Foundation's.
public enum JSONText {
    public static func string(_ value: String) -> String {
        (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? "null"
    }

    public static func string(_ value: String?) -> String { value.map(string) ?? "null" }

    /// Finite numbers to four decimals (levels, gains, tempos); anything else is null.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let rounded = (value * 10_000).rounded() / 10_000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }

    public static func number(_ value: Float) -> String { number(Double(value)) }
    public static func number(_ value: Double?) -> String { value.map(number) ?? "null" }
    public static func bool(_ value: Bool) -> String { value ? "true" : "false" }

    /// An object from already written values, in the given order.
    public static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    public static func array(_ values: [String]) -> String { "[" + values.joined(separator: ",") + "]" }
}
