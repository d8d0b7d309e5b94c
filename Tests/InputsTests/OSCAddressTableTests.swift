import Foundation
import Inputs
import TestSupport
import XCTest

/// The OSC address space is one table (`OSCAddresses`): docs/osc.md's table of addresses says
/// exactly what it says, and the routes, the OSC input, the performer prefix and the page obey it.
final class OSCAddressTableTests: XCTestCase {
    /// docs/osc.md's "| address | arguments | effect |" rows: each row's addresses and arguments.
    private func documentedRows() throws -> [(addresses: [String], arguments: String, performer: Bool)] {
        let page = try String(contentsOf: Subprocess.repository.appendingPathComponent("docs/osc.md"), encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try XCTUnwrap(lines.firstIndex(of: "| address | arguments | effect |"), "docs/osc.md's OSC table")
        let code = try NSRegularExpression(pattern: "`([^`]*)`")
        func spans(_ text: String) -> [String] {
            code.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
        }
        return lines[(header + 2)...].prefix { $0.hasPrefix("| `") }.map { row in
            // ["", address, arguments, effect, ""]
            let columns = row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            let performer = columns[0].hasPrefix("`/performer/<name>`")
            let addresses = spans(columns[0]).filter { $0 != "/performer/<name>" }
            return (addresses, spans(columns[1]).joined(separator: " or "), performer)
        }
    }

    func testTheDocumentedAddressTableIsTheTable() throws {
        let rows = try documentedRows()
        XCTAssertEqual(rows.filter(\.performer).count, 1, "one row lists a performer's addresses")
        for row in rows where !row.performer {
            let entries = row.addresses.compactMap { address in OSCAddresses.all.first { $0.patterns.contains(address) } }
            XCTAssertEqual(entries.count, row.addresses.count, "every documented address is in the table: \(row.addresses)")
            guard let entry = entries.first else { continue }
            XCTAssertTrue(entries.allSatisfy { $0.kind == entry.kind }, "one row, one entry: \(row.addresses)")
            XCTAssertEqual(Set(row.addresses), Set(entry.patterns), "the row lists every pattern of \(entry.kind)")
            XCTAssertEqual(row.arguments, entry.arguments, "\(entry.kind)'s arguments")
        }
        let documented = Set(rows.filter { !$0.performer }.flatMap(\.addresses))
        XCTAssertEqual(documented, Set(OSCAddresses.all.flatMap(\.patterns)), "every table address is in docs/osc.md")
        let performerRow = try XCTUnwrap(rows.first(where: \.performer))
        XCTAssertEqual(Set(performerRow.addresses), Set(OSCAddresses.all.filter(\.perPerformer).flatMap(\.patterns)),
                       "a performer's addresses are the table's perPerformer ones")
    }

    /// Every pattern of the table, filled in, matches its own entry and no other; a literal
    /// wins over a placeholder; what is not in the table matches nothing.
    func testEveryPatternMatchesItsOwnEntry() {
        for entry in OSCAddresses.all {
            for pattern in entry.patterns {
                let address = pattern.replacingOccurrences(of: "<name>", with: "piano").replacingOccurrences(of: "<n>", with: "2")
                    .replacingOccurrences(of: "<symbol>", with: "cutoff").replacingOccurrences(of: "<band>", with: "alpha")
                XCTAssertEqual(OSCAddresses.match(address)?.entry.kind, entry.kind, address)
            }
        }
        XCTAssertEqual(OSCAddresses.match("/voice/piano/insert/2/state")?.entry.kind, .insertState)
        XCTAssertEqual(OSCAddresses.match("/voice/piano/insert/2/state")?.captures["n"], "2")
        XCTAssertEqual(OSCAddresses.match("/master/insert/1/gain")?.captures["master"], "master")
        XCTAssertEqual(OSCAddresses.match("/muse/elements/gamma_absolute")?.captures["band"], "gamma")
        for stranger in ["/pulse", "/voice/piano", "/voice//gain", "/muse/elements/_absolute", "/pulse/bpm/x", "", "/"] {
            XCTAssertNil(OSCAddresses.match(stranger), stranger)
        }
    }

    /// The table's flags are what the routes, the performer prefix and the page do.
    func testTheRoutesThePerformerPrefixAndThePageObeyTheTable() {
        let routes = OSCRoutes(voices: ["piano"], regions: ["up"], performers: ["alice", "bob"])
        let page = PageInput(routes: routes)
        for entry in OSCAddresses.all {
            let address = entry.patterns[0].replacingOccurrences(of: "<name>", with: entry.kind == .region ? "up" : "piano")
                .replacingOccurrences(of: "<n>", with: "1").replacingOccurrences(of: "<symbol>", with: "gain")
                .replacingOccurrences(of: "<band>", with: "alpha")
            let split = routes.splitPerformer("/performer/bob" + address)
            XCTAssertEqual(split?.performer != nil, entry.perPerformer, "/performer/bob\(address)")
            if entry.byInput {
                XCTAssertEqual(routes.route(OSCMessage(address: address, arguments: [])), .unknownAddress, "\(address) is the input's own")
            }
            if !entry.fromPage {
                XCTAssertNotNil(page.handle(OSCMessage(address: address, arguments: [.float(1)])), "the page may not send \(address)")
            }
        }
        XCTAssertNil(page.handle(OSCMessage(address: "/voice/piano/gain", arguments: [.float(0.5)])), "the page may")
    }
}
