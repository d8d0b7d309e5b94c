import Foundation
import Hummingbird

/// Who may open the page and its WebSocket.
///
/// Bound to loopback, only this machine reaches the port, so no token is needed (unless one is
/// given); the `Host` must then name this machine (127.x, localhost, [::1]), so another site's
/// page cannot reach us through a DNS name rebound to 127.0.0.1. Bound beyond loopback, the page
/// and the WebSocket require the token (`?token=`). Every WebSocket upgrade whose `Origin` is
/// not the page's own origin (`http://` + the `Host` it asked for) is refused: another site's
/// page cannot drive the engine through a visitor's browser.
struct WebAccess: Sendable {
    let token: String?
    let loopback: Bool

    enum Refusal: Error, Equatable {
        case unauthorized, foreignOrigin(String), foreignHost(String)
    }

    /// A new token: 128 random bits in hex.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    func check(_ request: Request, webSocket: Bool) -> Refusal? {
        check(token: request.uri.queryParameters.get("token"), host: request.head.authority, origin: request.headers[.origin],
              webSocket: webSocket)
    }

    /// The same from a request's raw target and fields (`UpgradeGate`, before any decoding).
    func check(target: String, fields: [(String, String)]) -> Refusal? {
        let token = URLComponents(string: target)?.queryItems?.first { $0.name == "token" }?.value
        return check(token: token, host: fields.first { $0.0 == "host" }?.1, origin: fields.first { $0.0 == "origin" }?.1,
                     webSocket: true)
    }

    private func check(token given: String?, host: String?, origin: String?, webSocket: Bool) -> Refusal? {
        let host = host ?? ""
        if loopback && !Self.namesThisMachine(host) { return .foreignHost(host) }
        if let token, !Self.same(given ?? "", token) { return .unauthorized }
        if webSocket, let origin, origin != "http://" + host { return .foreignOrigin(origin) }
        return nil
    }

    /// A `Host` header naming this machine: an address in 127.0.0.0/8, localhost or [::1], with
    /// any port.
    static func namesThisMachine(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            name = name[name.index(after: name.startIndex)..<close]
            return name == "::1"
        }
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        return isLoopbackName(name)
    }

    /// localhost, ::1, or an IPv4 address (four decimal numbers) in 127.0.0.0/8. Not any name that
    /// begins "127.": `127.attacker.example` is a DNS name its owner can point at 127.0.0.1.
    static func isLoopbackName(_ name: some StringProtocol) -> Bool {
        if name == "localhost" || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              parts.allSatisfy({ Int($0).map { $0 <= 255 } ?? false }) else { return false }
        return parts[0] == "127"
    }

    /// Compares in time independent of where they differ.
    static func same(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count { difference |= (index < a.count ? a[index] : 0) ^ b[index] }
        return difference == 0
    }
}
