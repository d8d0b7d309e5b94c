import Inputs
import Foundation

/// Asks a running pulsejack for `/pulse/status` over UDP and decodes the name, value pairs of
/// its reply. Control thread (the `status` command, tests).
public enum OSCStatusQuery {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func ask(host: String, port: UInt16, timeout: Double = 1) throws -> [(String, StatusValue)] {
        guard let target = UDPSocket.Address(host: host, port: port) else { throw Failure(description: "\(host) is not an IP address") }
        let socket: UDPSocket
        do { socket = try UDPSocket.ephemeral(family: target.family) } catch { throw Failure(description: "\(error)") }
        socket.send(OSCReply.encode("/pulse/status", []), to: target)
        guard let (datagram, _) = socket.receive(timeout: timeout) else {
            throw Failure(description: "no pulsejack answered on \(host):\(port) within \(timeout) s (is `pulsejack run` running, with OSC on that port?)")
        }
        guard !datagram.isEmpty else { throw Failure(description: "no reply from \(host):\(port)") }
        let messages = try OSCPacket.decode(datagram)
        guard let reply = messages.first, reply.address == "/pulse/status" else { throw Failure(description: "\(host):\(port) answered something other than /pulse/status") }
        return OSCReply.values(of: reply)
    }
}
