import Foundation
import Inputs
@testable import WebSurface
import XCTest

/// The page's JSON both ways, against Foundation's own JSON parser: what the server writes
/// (`JSONText`) reads back as the values it was given; what the page sends (`PageCommand`) is
/// an OSC message or a ping, and anything else is refused.
final class PageMessageTests: XCTestCase {
    private func parsed(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    func testWrittenJSONReadsBackAsItsValues() throws {
        for text in ["plain", "quote \" and \\ backslash", "line\nbreak\ttab", "\u{0}\u{1f} control", "ünïcødé ♥ 𝄞", ""] {
            XCTAssertEqual(try parsed(JSONText.string(text)) as? String, text)
        }
        XCTAssertTrue(try parsed(JSONText.string(nil)) is NSNull)
        for (value, expected) in [(72.0, 72.0), (0.123456, 0.1235), (-3.5, -3.5), (1e14, 1e14)] {
            XCTAssertEqual(try parsed(JSONText.number(value)) as? Double ?? .nan, expected, accuracy: 1e-9)
        }
        for value in [Double.nan, .infinity, -.infinity] { XCTAssertTrue(try parsed(JSONText.number(value)) is NSNull) }
        let object = JSONText.object([("bpm", JSONText.number(72.0)), ("name", JSONText.string("a\"b")), ("on", JSONText.bool(true)),
                                      ("list", JSONText.array([JSONText.number(1.0), JSONText.string("x")]))])
        let read = try XCTUnwrap(try parsed(object) as? [String: Any])
        XCTAssertEqual(read["bpm"] as? Double, 72)
        XCTAssertEqual(read["name"] as? String, "a\"b")
        XCTAssertEqual(read["on"] as? Bool, true)
        XCTAssertEqual((read["list"] as? [Any])?.count, 2)
    }

    func testThePagesCommandsAreOSCMessagesOrPings() {
        XCTAssertEqual(PageCommand(json: #"{"type":"control","address":"/voice/kick/enable","args":[0]}"#),
                       .control(OSCMessage(address: "/voice/kick/enable", arguments: [.float(0)])))
        XCTAssertEqual(PageCommand(json: #"{"type":"control","address":"/voice/kick/gain","args":[0.5,"x",true]}"#),
                       .control(OSCMessage(address: "/voice/kick/gain", arguments: [.float(0.5), .string("x"), .bool(true)])))
        XCTAssertEqual(PageCommand(json: #"{"type":"control","address":"/pulse/beat"}"#), .control(OSCMessage(address: "/pulse/beat", arguments: [])))
        XCTAssertEqual(PageCommand(json: #"{"type":"ping","t":1234.5}"#), .ping(1234.5))
        let refused = [
            "", "not json", "[]", #"{"type":"control"}"#, #"{"type":"control","address":"voice/kick"}"#,
            #"{"type":"control","address":"/"# + String(repeating: "a", count: 300) + #""}"#, #"{"type":"ping"}"#,
            #"{"type":"unknown","address":"/pulse/beat"}"#, #"{"address":"/pulse/beat"}"#, #"{"type":"control","address":"/a","args":[{}]}"#,
        ]
        for text in refused { XCTAssertNil(PageCommand(json: text), text) }
    }
}
