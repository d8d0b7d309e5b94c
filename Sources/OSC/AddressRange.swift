import Inputs
import Foundation
import Glibc

/// A CIDR range of IP addresses (`127.0.0.0/8`, `192.168.1.0/24`, `::1/128`, or one address):
/// who may receive pulsejack's OSC replies. Any thread.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    public let family: Int32
    public let prefix: [UInt8]
    public let bits: Int
    public let description: String

    /// Loopback only: the default for replies.
    public static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = UDPSocket.Address(host: String(parts[0]), port: 0) else { return nil }
        let width = address.family == AF_INET6 ? 128 : 32
        guard let bits = parts.count == 2 ? Int(parts[1]) : width, (0...width).contains(bits) else { return nil }
        family = address.family
        prefix = address.hostBytes
        self.bits = bits
        description = text
    }

    /// Whether `address`'s host lies in the range.
    public func contains(_ address: UDPSocket.Address) -> Bool {
        guard address.family == family else { return false }
        let host = address.hostBytes
        var remaining = bits
        for index in 0..<prefix.count where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if host[index] & mask != prefix[index] & mask { return false }
            remaining -= 8
        }
        return true
    }
}
