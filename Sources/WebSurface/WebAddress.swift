/// `--web [ADDR:]PORT`: where the page is served. The address defaults to 127.0.0.1; an IPv6
/// address goes in brackets (`[::1]:8080`). Port 0 picks a free one.
public struct WebAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init?(_ text: String) {
        var host = "127.0.0.1", portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { return nil }
        self.host = host
        self.port = port
    }

    /// Only this machine can reach it: then no token is needed.
    public var isLoopback: Bool {
        WebAccess.isLoopbackName(host)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
