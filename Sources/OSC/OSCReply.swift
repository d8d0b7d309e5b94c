import Inputs
import CLiblo
import Foundation

/// What pulsejack sends over OSC: `/pulse/status` as name, value pairs and `/meter` as floats
/// (liblo encodes them), and the decoding of a status reply.
public enum OSCReply {
    /// The OSC bytes of `address` carrying `values` as name, value pairs.
    public static func encode(_ address: String, _ values: [(String, StatusValue)]) -> [UInt8] {
        guard let message = lo_message_new() else { return [] }
        defer { lo_message_free(message) }
        for (name, value) in values {
            lo_message_add_string(message, name)
            switch value {
            case .int(let number): lo_message_add_int32(message, Int32(clamping: number))
            case .float(let number): lo_message_add_float(message, Float(number))
            case .text(let text): lo_message_add_string(message, text)
            }
        }
        return serialise(message, address)
    }

    /// The OSC bytes of `address` with float arguments (the meters).
    public static func encode(_ address: String, floats: [Float]) -> [UInt8] {
        guard let message = lo_message_new() else { return [] }
        defer { lo_message_free(message) }
        for value in floats { lo_message_add_float(message, value) }
        return serialise(message, address)
    }

    private static func serialise(_ message: lo_message, _ address: String) -> [UInt8] {
        var size = 0
        guard let data = lo_message_serialise(message, address, nil, &size) else { return [] }
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// The name, value pairs of a decoded reply.
    public static func values(of reply: OSCMessage) -> [(String, StatusValue)] {
        var values: [(String, StatusValue)] = []
        var index = 0
        while index + 1 < reply.arguments.count {
            guard case .string(let name) = reply.arguments[index] else { index += 1; continue }
            switch reply.arguments[index + 1] {
            case .int(let value): values.append((name, .int(Int(value))))
            case .float(let value): values.append((name, .float(Double(value))))
            case .string(let value): values.append((name, .text(value)))
            default: break
            }
            index += 2
        }
        return values
    }
}
