import XCTest
import Foundation
import TestSupport

/// No function of the library, the executable or the benchmarks grows past 60 lines: a switch
/// that gains a case with every feature becomes a table instead (issue 56).
final class FunctionLengthTests: XCTestCase {
    static let limit = 60

    /// A line that opens a function, an initializer or a deinitializer.
    private static let declaration = try! NSRegularExpression(pattern: #"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|class|override|mutating|nonisolated|final|convenience|required)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b)"#)

    /// Each function longer than `limit` lines in `text`: its first line and its length, from its
    /// declaration to its closing brace (braces in string literals and comments not counted).
    static func longFunctions(in text: String) -> [(line: Int, name: String, lines: Int)] {
        let lines = text.components(separatedBy: "\n")
        var found: [(line: Int, name: String, lines: Int)] = []
        for (start, line) in lines.enumerated() {
            let range = NSRange(line.startIndex..., in: line)
            guard let match = declaration.firstMatch(in: line, range: range), let name = Range(match.range(at: 1), in: line) else { continue }
            var depth = 0, opened = false, end = start
            scan: while end < lines.count {
                for character in code(of: lines[end]) {
                    if character == "{" { depth += 1; opened = true }
                    if character == "}" { depth -= 1 }
                }
                // A protocol requirement has no body: nothing opens within its declaration.
                if (opened && depth <= 0) || (!opened && end > start + 8) { break scan }
                end += 1
            }
            if opened && end - start + 1 > limit { found.append((start + 1, String(line[name]), end - start + 1)) }
        }
        return found
    }

    /// A line without its string literals' contents and its comment.
    private static func code(of line: String) -> String {
        var code = "", inString = false, escaped = false, previous: Character = " "
        for character in line {
            defer { previous = character }
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            if character == "/" && previous == "/" { code.removeLast(); break }
            if character == "\"" { inString = true; continue }
            code.append(character)
        }
        return code
    }

    func testTheCounterMeasuresFromDeclarationToClosingBrace() {
        let body = (0..<Self.limit).map { "    let x\($0) = \"}\" // {" }.joined(separator: "\n")
        let long = "struct A {\n    func long() {\n\(body)\n    }\n    func short() { }\n}\n"
        let found = Self.longFunctions(in: long)
        XCTAssertEqual(found.map(\.name), ["func long"])
        XCTAssertEqual(found.first?.lines, Self.limit + 2)
        XCTAssertEqual(found.first?.line, 2)
        let fits = "func fits() {\n" + (0..<(Self.limit - 2)).map { _ in "    _ = 1" }.joined(separator: "\n") + "\n}\n"
        XCTAssertTrue(Self.longFunctions(in: fits).isEmpty)
    }

    func testNoFunctionIsLongerThanSixtyLines() throws {
        var long: [String] = []
        for folder in ["Sources", "Benchmarks"] {
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
