/// One OSC message as received: its address, arguments, and the timetag of the bundle that
/// carried it (nil for a bare message or an "immediately" timetag).
public struct OSCMessage: Sendable, Equatable {
    public enum Argument: Sendable, Equatable {
        case int(Int64)
        case float(Double)
        case string(String)
        case bool(Bool)
    }

    public var address: String
    public var arguments: [Argument]
    /// The OSC timetag: NTP time, seconds since 1900 in the high 32 bits, fraction in the low.
    public var timetag: UInt64?

    public init(address: String, arguments: [Argument], timetag: UInt64? = nil) {
        self.address = address
        self.arguments = arguments
        self.timetag = timetag
    }

    /// The arguments as numbers, or nil if any is not numeric.
    public var numbers: [Double]? {
        var values: [Double] = []
        for argument in arguments {
            switch argument {
            case .int(let value): values.append(Double(value))
            case .float(let value): values.append(value)
            case .bool(let value): values.append(value ? 1 : 0)
            case .string: return nil
            }
        }
        return values
    }
}
