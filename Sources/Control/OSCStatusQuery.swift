import CLiblo
import Foundation
import Glibc

/// Asks a running pulsejack for `/pulse/status` over UDP and decodes the name, value pairs of
/// its reply. Control thread (the `status` command, tests).
public enum OSCStatusQuery {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func ask(host: String, port: UInt16, timeout: Double = 1) throws -> [(String, StatusValue)] {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "cannot create a UDP socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(description: "\(host) is not an IPv4 address") }
        guard let message = lo_message_new() else { throw Failure(description: "liblo: out of memory") }
        defer { lo_message_free(message) }
        var size = 0
        guard let data = lo_message_serialise(message, "/pulse/status", nil, &size) else { throw Failure(description: "liblo: cannot serialise") }
        defer { free(data) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(socket, data, size, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else {
            throw Failure(description: "no pulsejack answered on \(host):\(port) within \(timeout) s (is `pulsejack run` running, with OSC on that port?)")
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &buffer, buffer.count, 0)
        guard count > 0 else { throw Failure(description: "no reply from \(host):\(port)") }
        let messages = try OSCPacket.decode(Array(buffer[0..<count]))
        guard let reply = messages.first, reply.address == "/pulse/status" else { throw Failure(description: "\(host):\(port) answered something other than /pulse/status") }
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
