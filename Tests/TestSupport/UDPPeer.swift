import OSC
import Inputs
import Foundation

/// A UDP socket on 127.0.0.1 that receives OSC (decoded by our reader) and answers senders:
/// the test side of a session manager or a meter subscriber. The engine's own `UDPSocket`.
public final class UDPPeer {
    public let socket: UDPSocket
    public let port: UInt16
    /// The address the last datagram came from.
    public private(set) var lastSender: UDPSocket.Address?

    public init() {
        socket = try! UDPSocket(binding: UDPSocket.Address(host: "127.0.0.1", port: 0)!)
        port = socket.local.port
    }

    /// The next message within `timeout` seconds (nil if none).
    public func receive(timeout: Double) -> OSCMessage? {
        receiveDatagram(timeout: timeout).flatMap { try? OSCPacket.decode($0).first }
    }

    /// The next datagram within `timeout` seconds, as bytes.
    public func receiveDatagram(timeout: Double) -> [UInt8]? {
        guard let (bytes, source) = socket.receive(timeout: max(0, timeout)), !bytes.isEmpty else { return nil }
        lastSender = source
        return bytes
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
        if let target = lastSender { socket.send(packet, to: target) }
    }

    /// Sends a packet to 127.0.0.1:`port` from this socket.
    public func send(_ packet: [UInt8], to port: UInt16) {
        socket.send(packet, to: UDPSocket.Address(host: "127.0.0.1", port: port)!)
    }
}
