import XCTest
import Foundation
import TestSupport

/// No function anywhere — the library, the executable, the benchmarks, the tests — grows past 60
/// lines: a switch that gains a case with every feature becomes a table instead, a long test
/// scenario reads as its steps (issue 56).
final class FunctionLengthTests: XCTestCase {
    static let limit = 60

    /// A line that opens a function, an initializer or a deinitializer.
    private static let declaration = try! NSRegularExpression(pattern: #"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|class|override|mutating|nonisolated|final|convenience|required)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b)"#)

    /// Each function longer than `limit` lines in `text`: its first line and its length, from its
    /// declaration to its closing brace (braces in string literals and comments not counted).
    static func longFunctions(in text: String) -> [(line: Int, name: String, lines: Int)] {
        let lines = text.components(separatedBy: "\n")
        let braces = braceSteps(in: text, lineCount: lines.count)
        var found: [(line: Int, name: String, lines: Int)] = []
        for (start, line) in lines.enumerated() {
            let range = NSRange(line.startIndex..., in: line)
            guard let match = declaration.firstMatch(in: line, range: range), let name = Range(match.range(at: 1), in: line) else { continue }
            var depth = 0, opened = false, end = start
            scan: while end < lines.count {
                for step in braces[end] {
                    depth += step
                    if step > 0 { opened = true }
                }
                // A protocol requirement has no body: nothing opens within its declaration.
                if (opened && depth <= 0) || (!opened && end > start + 8) { break scan }
                end += 1
            }
            if opened && end - start + 1 > limit { found.append((start + 1, String(line[name]), end - start + 1)) }
        }
        return found
    }

    private enum Place { case code, string, multiLineString, lineComment, blockComment }

    /// Each line's braces in code (+1 an opening one, −1 a closing one), outside string literals
    /// (multi-line ones too) and comments.
    private static func braceSteps(in text: String, lineCount: Int) -> [[Int]] {
        var steps = [[Int]](repeating: [], count: lineCount)
        let characters = Array(text)
        var place = Place.code, line = 0, index = 0
        func at(_ literal: String) -> Bool { characters[index...].starts(with: literal) }
        while index < characters.count {
            let character = characters[index]
            var width = 1
            if character == "\n" {
                line += 1
                if place == .lineComment || place == .string { place = .code }
            } else {
                switch place {
                case .code:
                    if at("\"\"\"") { (place, width) = (.multiLineString, 3) }
                    else if character == "\"" { place = .string }
                    else if at("//") { (place, width) = (.lineComment, 2) }
                    else if at("/*") { (place, width) = (.blockComment, 2) }
                    else if character == "{" { steps[line].append(1) }
                    else if character == "}" { steps[line].append(-1) }
                case .string:
                    if character == "\\" { width = 2 } else if character == "\"" { place = .code }
                case .multiLineString:
                    if character == "\\" { width = 2 } else if at("\"\"\"") { (place, width) = (.code, 3) }
                case .blockComment:
                    if at("*/") { (place, width) = (.code, 2) }
                case .lineComment:
                    break
                }
            }
            index += width
        }
        return steps
    }

    func testTheCounterMeasuresFromDeclarationToClosingBrace() {
        let body = (0..<Self.limit).map { "    let x\($0) = \"}\" // {" }.joined(separator: "\n")
        let long = "struct A {\n    func long() {\n\(body)\n    }\n    func short() { }\n}\n"
        let found = Self.longFunctions(in: long)
        XCTAssertEqual(found.map(\.name), ["func long"])
        XCTAssertEqual(found.first?.lines, Self.limit + 2)
        XCTAssertEqual(found.first?.line, 2)
        // Seven lines whose braces are in a multi-line string (with a "//" in it) and a comment.
        let quoted = "func quoted() {\n    let yaml = \"\"\"\n      inserts: [{plugin: http://lv2plug.in/plugins/eg-amp}]\n      {\n"
            + "      \"\"\"\n    /* { */\n}\n"
        XCTAssertEqual(Self.longFunctions(in: quoted + long).map(\.line), [9], "braces in a multi-line string and a comment do not count")
        let fits = "func fits() {\n" + (0..<(Self.limit - 2)).map { _ in "    _ = 1" }.joined(separator: "\n") + "\n}\n"
        XCTAssertTrue(Self.longFunctions(in: fits).isEmpty)
    }

    func testNoFunctionIsLongerThanSixtyLines() throws {
        var long: [String] = []
        for folder in ["Sources", "Benchmarks", "Tests"] {
            let root = Subprocess.repository.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            XCTAssertFalse(files.isEmpty, folder)
            for file in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                let path = file.path.replacingOccurrences(of: Subprocess.repository.path + "/", with: "")
                long += Self.longFunctions(in: text).map { "\(path):\($0.line) \($0.name): \($0.lines) lines" }
            }
        }
        XCTAssertEqual(long, [], "functions over \(Self.limit) lines")
    }
}
