import Foundation
import TestSupport
import XCTest

/// The README a newcomer reads and the topics in `docs/` it maps: every relative link lands on a
/// file and, with a `#fragment`, on a heading there (as GitHub names headings); every file in
/// `docs/` is reached from the README; the README stays short.
final class DocumentationTests: XCTestCase {
    private let repository = Subprocess.repository

    /// The README and every Markdown file in `docs/`, by their path in the clone.
    private func pages() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }

    private func text(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// A page's lines outside fenced code.
    private func prose(_ text: String) -> [Substring] {
        var inFence = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") { inFence.toggle(); return false }
            return !inFence
        }
    }

    /// The fragments a page's headings answer to, as GitHub makes them: lower case, everything but
    /// letters, digits, `-` and `_` dropped, spaces made `-`, a repeated one numbered `-1`, `-2` ….
    static func anchors(of lines: [Substring]) -> Set<String> {
        var seen: [String: Int] = [:], anchors: Set<String> = []
        for line in lines where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }
            guard title.first == " " else { continue }
            var slug = ""
            for character in title.dropFirst().lowercased() {
                if character == " " { slug.append("-") } else if character.isLetter || character.isNumber || character == "-" || character == "_" { slug.append(character) }
            }
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// Every `](target)` on a page's prose lines that is not a URL.
    static func relativeLinks(in lines: [Substring]) -> [String] {
        lines.flatMap { line -> [String] in
            line.components(separatedBy: "](").dropFirst().compactMap { rest in
                guard let end = rest.firstIndex(of: ")") else { return nil }
                let target = String(rest[..<end])
                return target.contains("://") || target.hasPrefix("mailto:") ? nil : target
            }
        }
    }

    func testTheAnchorsAreGitHubs() {
        XCTAssertEqual(Self.anchors(of: ["# The live page — `run --web`", "## Into a DAW", "## Into a DAW", "#!/bin/sh"]),
                       ["the-live-page--run---web", "into-a-daw", "into-a-daw-1"])
        XCTAssertEqual(Self.relativeLinks(in: ["see [a](docs/a.md#b) and [c](https://x.org/) ![p](p.png)"]), ["docs/a.md#b", "p.png"])
    }

    func testEveryRelativeLinkResolvesAndEveryTopicIsReached() throws {
        let pages = try pages()
        XCTAssertGreaterThanOrEqual(pages.count, 12, "README.md and the topics in docs/")
        var broken: [String] = [], reached: Set<String> = ["README.md"], next = ["README.md"]
        var anchorsByPage: [String: Set<String>] = [:]
        for page in pages { anchorsByPage[page] = Self.anchors(of: prose(try text(page))) }
        var checked = 0
        while let page = next.popLast() {
            let folder = (page as NSString).deletingLastPathComponent
            for link in Self.relativeLinks(in: prose(try text(page))) {
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? page : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                guard FileManager.default.fileExists(atPath: repository.appendingPathComponent(target).path) else {
                    broken.append("\(page): \(link): no such file"); continue
                }
                if parts.count == 2 {
                    let anchors = try anchorsByPage[target] ?? (target.hasSuffix(".md") ? Self.anchors(of: prose(text(target))) : [])
                    guard anchors.contains(parts[1]) else {
                        broken.append("\(page): \(link): no such heading in \(target)"); continue
                    }
                }
                if pages.contains(target), reached.insert(target).inserted { next.append(target) }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 30, "the links were read")
        XCTAssertEqual(broken, [])
        XCTAssertEqual(Set(pages).subtracting(reached).sorted(), [], "topics in docs/ that no link from the README reaches")
    }

    /// The README is the way in, not the whole manual.
    func testTheReadmeIsShortAndStartsWithTheTwoCommands() throws {
        let readme = try text("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertLessThanOrEqual(lines.count, 400)
        let demo = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("make demo") }), test = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("make test") })
        XCTAssertLessThan(demo, test)
        let firstCommand = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("```") })
        XCTAssertEqual(demo, firstCommand + 1, "the first thing to type is make demo")
    }

    /// Every Swift file the docs name (`Runs/LiveInputs.swift`, `ECGBeatDetector.swift`) is there:
    /// a path under `Sources/`, `Tests/` or `Benchmarks/`, a bare name anywhere in them — so a
    /// message's walk through the files follows the tree as it is.
    func testEveryFileTheDocsNameExists() throws {
        var names: Set<String> = []
        for page in try pages() {
            // A template (`Sources/Voices/<Name>Voice.swift`) names no file.
            for piece in try text(page).components(separatedBy: "`").enumerated()
            where piece.offset % 2 == 1 && piece.element.hasSuffix(".swift") && !piece.element.contains("<") {
                names.insert(piece.element)
            }
        }
        XCTAssertGreaterThan(names.count, 30, "the docs name files")
        var everywhere: Set<String> = []
        for folder in ["Sources", "Tests", "Benchmarks"] {
            let root = repository.appendingPathComponent(folder)
            let paths = try XCTUnwrap(FileManager.default.enumerator(atPath: root.path), folder)
            for case let path as String in paths { everywhere.insert("\(folder)/\(path)") }
        }
        let missing = names.filter { name in
            name.contains("/") ? !["", "Sources/", "Tests/", "Benchmarks/"].contains { everywhere.contains($0 + name) }
                               : !everywhere.contains { ($0 as NSString).lastPathComponent == name }
        }
        XCTAssertEqual(missing.sorted(), [], "files the docs name that are not in the tree")
    }
}
