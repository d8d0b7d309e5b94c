import Control
import Foundation
import Glibc

/// A UDP socket on 127.0.0.1 that receives OSC (decoded by our reader) and answers senders:
/// the test side of a session manager or a meter subscriber.
public final class UDPPeer {
    public let socket: Int32
    public let port: UInt16
    /// The address the last datagram came from.
    public private(set) var lastSender: sockaddr_in?

    public init() {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(socket) }

    /// The next message within `timeout` seconds (nil if none).
    public func receive(timeout: Double) -> OSCMessage? {
        receiveDatagram(timeout: timeout).flatMap { try? OSCPacket.decode($0).first }
    }

    /// The next datagram within `timeout` seconds, as bytes.
    public func receiveDatagram(timeout: Double) -> [UInt8]? {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(socket, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count > 0 else { return nil }
        lastSender = source
        return Array(buffer[0..<count])
    }

    /// Waits up to `timeout` seconds for a message to `address`, skipping others.
    public func expect(_ address: String, timeout: Double) -> OSCMessage? {
        let deadline = Date() + timeout
        while Date() < deadline {
            if let message = receive(timeout: deadline.timeIntervalSinceNow), message.address == address { return message }
        }
        return nil
    }

    /// Sends a packet to the last sender.
    public func reply(_ packet: [UInt8]) {
        if let target = lastSender { send(packet, to: target) }
    }

    /// Sends a packet to 127.0.0.1:`port` from this socket.
    public func send(_ packet: [UInt8], to port: UInt16) {
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &target.sin_addr)
        send(packet, to: target)
    }

    private func send(_ packet: [UInt8], to destination: sockaddr_in) {
        var target = destination
        _ = packet.withUnsafeBytes { bytes in
            withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socket, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}
