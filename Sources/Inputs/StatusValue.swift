import Foundation

/// One value of the engine's status (`/pulse/status`, `pulsejack status`).
public enum StatusValue: Sendable, Equatable, CustomStringConvertible {
    case int(Int)
    case float(Double)
    case text(String)

    public var description: String {
        switch self {
        case .int(let value): return "\(value)"
        case .float(let value): return String(format: "%.2f", value)
        case .text(let value): return value
        }
    }
}

extension StatusValue {
    /// The values as one JSON object, its keys sorted (`pulsejack status --json`); a number that
    /// is not finite is written as null.
    public static func jsonObject(_ values: [(String, StatusValue)]) throws -> String {
        var object: [String: Any] = [:]
        for (name, value) in values {
            switch value {
            case .int(let number): object[name] = number
            case .float(let number): object[name] = number.isFinite ? number : NSNull()  // JSON has no NaN or Inf
            case .text(let text): object[name] = text
            }
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The values as text, one `name  value` a line, the names padded to one width (`pulsejack status`).
    public static func table(_ values: [(String, StatusValue)]) -> [String] {
        let width = values.map(\.0.count).max() ?? 0
        return values.map { name, value in name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(value)" }
    }
}
