import Foundation

/// An OSC 1.0 encoder written for the tests, independent of liblo, and a UDP sender.
public enum OSCEncoder {
    public enum Argument {
        case int(Int32), float(Float), string(String)
    }

    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: 4 - bytes.count % 4)
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    public static func message(_ address: String, _ arguments: [Argument] = []) -> [UInt8] {
        var tags = ","
        var payload: [UInt8] = []
        for argument in arguments {
            switch argument {
            case .int(let value): tags += "i"; payload += bigEndian(value)
            case .float(let value): tags += "f"; payload += bigEndian(value.bitPattern)
            case .string(let value): tags += "s"; payload += padded(Array(value.utf8))
            }
        }
        return padded(Array(address.utf8)) + padded(Array(tags.utf8)) + payload
    }

    /// A bundle at NTP timetag `timetag` (32.32 fixed point).
    public static func bundle(timetag: UInt64, _ elements: [[UInt8]]) -> [UInt8] {
        var bytes = padded(Array("#bundle".utf8)) + bigEndian(timetag)
        for element in elements { bytes += bigEndian(Int32(element.count)) + element }
        return bytes
    }

    /// Now as NTP 32.32.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec + 2_208_988_800) << 32 | (UInt64(time.tv_nsec) << 32) / 1_000_000_000
    }

    /// Sends `packet` to 127.0.0.1:`port` over UDP; with `awaitReply`, returns the reply datagram.
    @discardableResult
    public static func send(_ packet: [UInt8], port: UInt16, awaitReply: Bool = false) -> [UInt8]? {
        let peer = UDPPeer()
        peer.send(packet, to: port)
        return awaitReply ? peer.receiveDatagram(timeout: 3) : nil
    }

    /// A UDP port nobody listens on now.
    public static func freePort() -> UInt16 { UDPPeer().port }
}
