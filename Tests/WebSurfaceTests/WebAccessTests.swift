@testable import WebSurface
import XCTest

/// Who may open the page and its WebSocket, from the request's target and fields alone: the
/// `Host` on loopback, the token beyond it, the `Origin` of every WebSocket upgrade.
final class WebAccessTests: XCTestCase {
    private func fields(host: String?, origin: String? = nil) -> [(String, String)] {
        (host.map { [("host", $0)] } ?? []) + (origin.map { [("origin", $0)] } ?? [])
    }

    func testOnLoopbackOnlyThisMachinesNamesAndNoTokenNeeded() {
        let access = WebAccess(token: nil, loopback: true)
        for host in ["127.0.0.1:8080", "127.1.2.3", "localhost:8080", "localhost", "[::1]:8080", "[::1]"] {
            XCTAssertNil(access.check(target: "/ws", fields: fields(host: host, origin: "http://" + host)), host)
        }
        // A DNS name rebound to 127.0.0.1 is refused by name, whatever it begins with.
        for host in ["attacker.example:8080", "127.attacker.example:8080", "127.0.0.1.attacker.example", "localhost.example",
                     "[::2]:8080", "127.0.0.256", "127.0.0", "", "[::1"] {
            XCTAssertEqual(access.check(target: "/ws", fields: fields(host: host)), .foreignHost(host), host)
        }
        XCTAssertEqual(access.check(target: "/ws", fields: fields(host: nil)), .foreignHost(""), "no Host at all")
    }

    func testBeyondLoopbackTheTokenIsNeeded() {
        let access = WebAccess(token: "s3cret", loopback: false)
        let host = "192.0.2.7:8080"
        XCTAssertEqual(access.check(target: "/ws", fields: fields(host: host)), .unauthorized)
        XCTAssertEqual(access.check(target: "/ws?token=wrong", fields: fields(host: host)), .unauthorized)
        XCTAssertEqual(access.check(target: "/ws?token=s3cre", fields: fields(host: host)), .unauthorized, "a prefix is not the token")
        XCTAssertEqual(access.check(target: "/ws?token=s3cret1", fields: fields(host: host)), .unauthorized, "nor is a longer one")
        XCTAssertNil(access.check(target: "/ws?token=s3cret", fields: fields(host: host, origin: "http://" + host)))
        XCTAssertNil(access.check(target: "/ws?x=1&token=s3cret", fields: fields(host: "pulse.example:8080")), "any name beyond loopback")
    }

    func testAWebSocketFromAnotherOriginIsRefused() {
        let access = WebAccess(token: nil, loopback: true)
        let host = "127.0.0.1:8080"
        XCTAssertEqual(access.check(target: "/ws", fields: fields(host: host, origin: "http://attacker.example")),
                       .foreignOrigin("http://attacker.example"))
        XCTAssertEqual(access.check(target: "/ws", fields: fields(host: host, origin: "http://127.0.0.1:9090")),
                       .foreignOrigin("http://127.0.0.1:9090"), "another port is another origin")
        XCTAssertEqual(access.check(target: "/ws", fields: fields(host: host, origin: "https://127.0.0.1:8080")),
                       .foreignOrigin("https://127.0.0.1:8080"))
        XCTAssertNil(access.check(target: "/ws", fields: fields(host: host)), "no Origin: not a browser's page")
    }

    func testTokensAreRandomAndComparedWhole() {
        let tokens = (0..<64).map { _ in WebAccess.makeToken() }
        XCTAssertEqual(Set(tokens).count, 64)
        XCTAssertTrue(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }, "128 bits in hex")
        XCTAssertTrue(WebAccess.same("abc", "abc"))
        for other in ["abd", "ab", "abcd", "", "ABC"] { XCTAssertFalse(WebAccess.same(other, "abc"), other) }
    }

    func testTheBindAddressIsParsedAndKnownAsLoopback() throws {
        let plain = try XCTUnwrap(WebAddress("8080"))
        XCTAssertEqual([plain.host, String(plain.port)], ["127.0.0.1", "8080"])
        XCTAssertTrue(plain.isLoopback)
        let open = try XCTUnwrap(WebAddress("0.0.0.0:8080"))
        XCTAssertFalse(open.isLoopback)
        let six = try XCTUnwrap(WebAddress("[::1]:0"))
        XCTAssertEqual([six.host, String(six.port), six.description], ["::1", "0", "[::1]:0"])
        XCTAssertTrue(six.isLoopback)
        XCTAssertFalse(try XCTUnwrap(WebAddress("127.evil.example:80")).isLoopback, "a name is not an address")
        for bad in ["", "http", "65536", "-1", ":8080", "[::1]8080", "[::1", "host:port"] { XCTAssertNil(WebAddress(bad), bad) }
    }
}
