import Foundation
import Glibc

/// A WebSocket client on a plain TCP socket (RFC 6455), written for tests and benchmarks: it
/// sends exactly what it is told — any `Origin`, no token, broken JSON, oversized or binary
/// messages — which a browser or a library client would not. Not for production use.
// @unchecked: one thread receives (it alone touches `buffer`) while another may send; the
// socket is full duplex.
public final class WebSocketPeer: @unchecked Sendable {
    public struct Refused: Error, CustomStringConvertible {
        public var status: Int
        public var description: String { "the upgrade was answered \(status)" }
    }

    public enum Frame: Equatable {
        case text(String)
        case close(code: Int)
        case other(opcode: UInt8)
    }

    private let socket: Int32
    private var buffer: [UInt8] = []

    /// Opens the connection and upgrades `path` (with its query); throws `Refused` with the
    /// HTTP status when the server does not switch protocols.
    public init(port: Int, path: String, origin: String? = nil, host: String? = nil, timeout: Double = 5) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Refused(status: 0)
        }
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        try write(Array((request + "\r\n").utf8))
        // The response head.
        while !buffer.containsHeadEnd {
            guard try fill() else { break }
        }
        let head = String(decoding: buffer, as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        guard status == 101, let end = buffer.headEnd else {
            close(socket)
            throw Refused(status: status)
        }
        buffer.removeFirst(end)
    }

    deinit { close(socket) }

    /// Ends the connection as a closed tab does (the socket is freed when the peer is).
    public func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// One whole HTTP response to a plain GET: its status.
    public static func get(port: Int, path: String, host: String? = nil) throws -> Int {
        try PlainHTTP.request("GET", port: port, path: path, headers: host.map { ["Host": $0] } ?? [:]).status
    }

    public func send(text: String) throws { try send(opcode: 1, payload: Array(text.utf8)) }

    /// A frame of any opcode (1 text, 2 binary, 8 close …), masked as a client must.
    public func send(opcode: UInt8, payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65_536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $1 ^ mask[$0 % 4] }
        try write(frame)
    }

    /// The next frame from the server; nil when the connection ends or `read` times out.
    public func receive() throws -> Frame? {
        while true {
            if let (frame, used) = parse() {
                buffer.removeFirst(used)
                return frame
            }
            guard try fill() else { return nil }
        }
    }

    /// The next text message (other frames skipped); nil at the end.
    public func receiveText() throws -> String? {
        while let frame = try receive() {
            switch frame {
            case .text(let text): return text
            case .close: return nil
            case .other: continue
            }
        }
        return nil
    }

    private func parse() -> (Frame, Int)? {
        guard buffer.count >= 2 else { return nil }
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F), offset = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            offset = 10
        }
        guard buffer.count >= offset + length else { return nil }
        let payload = Array(buffer[offset..<offset + length])
        switch opcode {
        case 1: return (.text(String(decoding: payload, as: UTF8.self)), offset + length)
        case 8: return (.close(code: payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005), offset + length)
        default: return (.other(opcode: opcode), offset + length)
        }
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Refused(status: -1) }
            sent += count
        }
    }
}

private extension [UInt8] {
    var headEnd: Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
    var containsHeadEnd: Bool { headEnd != nil }
}
