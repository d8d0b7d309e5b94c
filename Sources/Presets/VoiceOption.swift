import Foundation

/// The value of a field only some voice kinds have (`chords`, `toe`, `track_bpm` …), decoded by
/// the type its kind's descriptor gives it (`VoiceField.decode`).
public enum VoiceOption: Sendable, Equatable, Encodable {
    case number(Double)
    case whole(Int)
    case text(String)
    case flag(Bool)
    case texts([String])
    case numbers([Double])
    case controls([String: Double])

    public var number: Double? {
        switch self {
        case .number(let value): value
        case .whole(let value): Double(value)
        default: nil
        }
    }
    public var whole: Int? { if case .whole(let value) = self { value } else { nil } }
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    public var flag: Bool? { if case .flag(let value) = self { value } else { nil } }
    public var texts: [String]? { if case .texts(let value) = self { value } else { nil } }
    public var numbers: [Double]? { if case .numbers(let value) = self { value } else { nil } }
    public var controls: [String: Double]? { if case .controls(let value) = self { value } else { nil } }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .whole(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .flag(let value): try container.encode(value)
        case .texts(let value): try container.encode(value)
        case .numbers(let value): try container.encode(value)
        case .controls(let value): try container.encode(value)
        }
    }
}
