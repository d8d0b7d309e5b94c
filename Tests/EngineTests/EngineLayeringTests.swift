import Foundation
import TestSupport
import XCTest

/// The engine is the offline renderer's as much as the live run's: it names no layer above or
/// beside it, and so links neither libjack nor liblo; nor does an offline render. Read from the
/// package's own target graph (SwiftPM's `dump-package`) and from every source file's imports.
final class EngineLayeringTests: XCTestCase {
    /// Each target's direct dependencies on other targets of the package, by name.
    private func targetGraph() throws -> [String: [String]] {
        let scratch = try TemporaryFolder("layering")
        defer { scratch.remove() }
        // A scratch folder of its own: the running `swift test` holds the package's `.build`.
        let dump = try Subprocess.run("/usr/bin/env", ["swift", "package", "--package-path", Subprocess.repository.path,
                                                         "--scratch-path", scratch.url.path, "dump-package"], timeout: 120)
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let package = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var graph: [String: [String]] = [:]
        for target in try XCTUnwrap(package["targets"] as? [[String: Any]]) {
            let name = try XCTUnwrap(target["name"] as? String)
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency -> String? in
                (dependency["byName"] as? [Any])?.first as? String ?? (dependency["target"] as? [Any])?.first as? String
            }
            graph[name] = dependencies
        }
        return graph
    }

    private func closure(of target: String, in graph: [String: [String]]) -> Set<String> {
        var seen: Set<String> = []
        var next = [target]
        while let name = next.popLast() {
            for dependency in graph[name] ?? [] where seen.insert(dependency).inserted { next.append(dependency) }
        }
        return seen
    }

    func testTheEngineLinksNeitherJackNorLiblo() throws {
        let graph = try targetGraph()
        let engine = closure(of: "Engine", in: graph)
        XCTAssertFalse(engine.isEmpty, "the graph was read")
        XCTAssertTrue(engine.contains("Voices") && engine.contains("Plugins"), "the engine's own layers are below it: \(engine.sorted())")
        for above in ["CJack", "CLiblo", "Inputs", "Sensors", "JackBackend", "Presets", "Runs", "WebSurface", "Reports"] {
            XCTAssertFalse(engine.contains(above), "the engine reaches \(above): \(engine.sorted())")
        }
        // The layers below the engine too: a sound file or a plugin links no JACK or OSC either.
        for target in ["Realtime", "UserFiles", "Voices", "SoundFiles", "Plugins"] {
            let reached = closure(of: target, in: graph)
            XCTAssertTrue(reached.isDisjoint(with: ["CJack", "CLiblo", "Inputs"]), "\(target) reaches \(reached.sorted())")
        }
        // The JACK backend is where JACK lives, and OSC where liblo does.
        XCTAssertTrue(closure(of: "JackBackend", in: graph).contains("CJack"))
        XCTAssertTrue(closure(of: "OSC", in: graph).contains("CLiblo"))
    }

    /// An offline render (`Renders`: the engine period by period into files) and everything it
    /// reads (presets, sessions, sensor DSP) link neither libjack nor liblo.
    func testAnOfflineRenderLinksNeitherJackNorLiblo() throws {
        let graph = try targetGraph()
        let render = closure(of: "Renders", in: graph)
        XCTAssertTrue(render.isSuperset(of: ["Engine", "Presets", "Inputs", "SoundFiles", "Reports"]), render.sorted().description)
        for live in ["CJack", "CLiblo", "JackBackend", "OSC", "Runs", "WebSurface"] {
            XCTAssertFalse(render.contains(live), "a render reaches \(live): \(render.sorted())")
        }
        XCTAssertTrue(closure(of: "Runs", in: graph).isSuperset(of: ["Renders", "JackBackend", "OSC"]), "the live run has both")
    }

    func testNoEngineSourceImportsJackOrOSC() throws {
        let folder = Subprocess.repository.appendingPathComponent("Sources/Engine")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") {
                let module = line.dropFirst("import ".count).trimmingCharacters(in: .whitespaces)
                XCTAssertFalse(["CJack", "CLiblo", "Inputs", "JackBackend"].contains(module), "Sources/Engine/\(file): \(line)")
            }
        }
    }
}
