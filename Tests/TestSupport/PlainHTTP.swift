import Foundation
import Glibc

/// One HTTP/1.1 request on a plain TCP socket to 127.0.0.1, for tests: chromedriver writes
/// headers without the space after the colon, which Foundation's URLSession on Linux refuses,
/// and the web tests send `Host` headers URLSession would not.
public enum PlainHTTP {
    public struct Response {
        public var status: Int
        public var body: Data
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public static func request(_ method: String, port: Int, path: String, body: Data? = nil,
                               headers: [String: String] = [:], timeout: Double = 60) throws -> Response {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "cannot connect to 127.0.0.1:\(port)") }
        var head = "\(method) \(path) HTTP/1.1\r\nConnection: close\r\nContent-Length: \(body?.count ?? 0)\r\n"
        if headers["Host"] == nil { head += "Host: 127.0.0.1:\(port)\r\n" }
        if body != nil { head += "Content-Type: application/json\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8) + Array(body ?? Data())
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "the connection to \(port) closed while sending") }
            sent += count
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
            if let (status, length, start) = parseHead(received), let length, received.count >= start + length {
                return Response(status: status, body: Data(received[start..<start + length]))
            }
        }
        guard let (status, _, start) = parseHead(received) else { throw Failure(description: "no HTTP response from \(port)") }
        return Response(status: status, body: Data(received[start...]))
    }

    /// The status, the Content-Length (if given) and where the body starts.
    private static func parseHead(_ bytes: [UInt8]) -> (Int, Int?, Int)? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            let lines = String(decoding: bytes[0..<index], as: UTF8.self).split(separator: "\r\n")
            let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
            let length = lines.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)) }
            return (status, length, index + 4)
        }
        return nil
    }
}
