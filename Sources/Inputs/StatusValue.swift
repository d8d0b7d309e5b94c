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
