import CLiblo
import Inputs

/// Decodes a UDP datagram into OSC messages: liblo deserialises each message; bundles (nested
/// ones too) are unpacked here so each message keeps its bundle's timetag. Sensor thread.
public enum OSCPacket {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        public var description: String { if case .malformed(let why) = self { return why }; return "" }
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws -> [OSCMessage] {
        var messages: [OSCMessage] = []
        try decode(bytes, timetag: nil, depth: 0, into: &messages)
        return messages
    }

    public static func decode(_ data: [UInt8]) throws -> [OSCMessage] {
        try data.withUnsafeBytes { try decode($0) }
    }

    private static func readUInt32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        (UInt32(bytes[at]) << 24) | (UInt32(bytes[at + 1]) << 16) | (UInt32(bytes[at + 2]) << 8) | UInt32(bytes[at + 3])
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, timetag: UInt64?, depth: Int,
                               into messages: inout [OSCMessage]) throws {
        guard bytes.count >= 4, bytes.count % 4 == 0 else { throw Failure.malformed("packet size \(bytes.count) is not a positive multiple of 4") }
        if bytes[0] == UInt8(ascii: "#") {
            guard depth < 8 else { throw Failure.malformed("bundles nested too deep") }
            guard bytes.count >= 16, Array(bytes[0..<8]) == Array("#bundle\0".utf8) else { throw Failure.malformed("bad bundle header") }
            let seconds = readUInt32(bytes, 8), fraction = readUInt32(bytes, 12)
            // Timetag 1 (0 s, fraction 1) means "immediately".
            let tag: UInt64? = (seconds == 0 && fraction == 1) ? timetag : UInt64(seconds) << 32 | UInt64(fraction)
            var offset = 16
            while offset < bytes.count {
                guard offset + 4 <= bytes.count else { throw Failure.malformed("truncated bundle element size") }
                let size = Int(readUInt32(bytes, offset))
                offset += 4
                guard size > 0, size % 4 == 0, offset + size <= bytes.count else {
                    throw Failure.malformed("bundle element of \(size) bytes does not fit")
                }
                try decode(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]), timetag: tag, depth: depth + 1,
                           into: &messages)
                offset += size
            }
            return
        }
        guard bytes[0] == UInt8(ascii: "/") else { throw Failure.malformed("an OSC address starts with '/'") }
        // liblo wants a mutable pointer but does not write through it.
        let raw = UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
        var result: Int32 = 0
        guard let message = lo_message_deserialise(raw, bytes.count, &result) else {
            throw Failure.malformed("liblo could not decode the message (error \(result))")
        }
        defer { lo_message_free(message) }
        guard let pathEnd = bytes.firstIndex(of: 0) else { throw Failure.malformed("unterminated address") }
        let address = String(decoding: bytes[0..<pathEnd], as: UTF8.self)
        let count = Int(lo_message_get_argc(message))
        var arguments: [OSCMessage.Argument] = []
        if count > 0, let types = lo_message_get_types(message), let argv = lo_message_get_argv(message) {
            for index in 0..<count {
                guard let argument = argv[index] else { continue }
                switch UInt8(bitPattern: types[index]) {
                case UInt8(ascii: "i"): arguments.append(.int(Int64(argument.pointee.i)))
                case UInt8(ascii: "h"): arguments.append(.int(argument.pointee.h))
                case UInt8(ascii: "f"): arguments.append(.float(Double(argument.pointee.f)))
                case UInt8(ascii: "d"): arguments.append(.float(argument.pointee.d))
                case UInt8(ascii: "s"), UInt8(ascii: "S"):
                    // The string lives in the argument's own memory (lo_arg.s is its first char).
                    arguments.append(.string(String(cString: UnsafeRawPointer(argument).assumingMemoryBound(to: CChar.self))))
                case UInt8(ascii: "T"): arguments.append(.bool(true))
                case UInt8(ascii: "F"): arguments.append(.bool(false))
                default: throw Failure.malformed("argument type '\(Character(UnicodeScalar(UInt8(bitPattern: types[index]))))' is not supported")
                }
            }
        }
        messages.append(OSCMessage(address: address, arguments: arguments, timetag: timetag))
    }
}
