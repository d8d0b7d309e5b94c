import Foundation
import TestSupport
import XCTest

/// The engine is the offline renderer's as much as the live run's: it names no layer above or
/// beside it, and so links neither libjack nor liblo; nor does an offline render. Read from the
/// package's own target graph (SwiftPM's `dump-package`) and from every source file's imports.
final class EngineLayeringTests: XCTestCase {
    /// A target as `dump-package` describes it: its folder, its kind, and what it declares it
    /// depends on (the package's targets and other packages' products, by module name).
    private struct Declared {
        var folder: String
        var type: String
        var dependencies: [String]
    }

    /// Every target of the package, read by SwiftPM itself.
    private func declaredTargets() throws -> [String: Declared] {
        let scratch = try TemporaryFolder("layering")
        defer { scratch.remove() }
        // A scratch folder of its own: the running `swift test` holds the package's `.build`.
        let dump = try Subprocess.run("/usr/bin/env", ["swift", "package", "--package-path", Subprocess.repository.path,
                                                         "--scratch-path", scratch.url.path, "dump-package"], timeout: 120)
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let package = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var targets: [String: Declared] = [:]
        for target in try XCTUnwrap(package["targets"] as? [[String: Any]]) {
            let name = try XCTUnwrap(target["name"] as? String), type = try XCTUnwrap(target["type"] as? String)
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency -> String? in
                (dependency["byName"] as? [Any])?.first as? String ?? (dependency["target"] as? [Any])?.first as? String
                    ?? (dependency["product"] as? [Any])?.first as? String
            }
            let folder = target["path"] as? String ?? "\(type == "test" ? "Tests" : "Sources")/\(name)"
            targets[name] = Declared(folder: folder, type: type, dependencies: dependencies)
        }
        return targets
    }

    /// Each target's direct dependencies on other targets of the package, by name.
    private func targetGraph() throws -> [String: [String]] {
        let targets = try declaredTargets()
        return targets.mapValues { $0.dependencies.filter { targets[$0] != nil } }
    }

    /// The modules a target's Swift sources import (`import X`, `@testable import X`, …).
    private func imports(of declared: Declared) throws -> Set<String> {
        let folder = Subprocess.repository.appendingPathComponent(declared.folder)
        let files = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }
        var modules: Set<String> = []
        for file in files {
            for line in try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") && $0 != "public" && $0 != "internal" }
                if words.count >= 2, words[0] == "import" { modules.insert(String(words.last!)) }
            }
        }
        return modules
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
    /// reads (presets, sessions, sensor DSP) link neither libjack nor liblo, nor any device's
    /// library: the presets name sensors and streams as plain words (`SensorSpec`), which only a
    /// live run resolves (no sd-bus, no liblsl).
    func testAnOfflineRenderLinksNeitherJackNorLiblo() throws {
        let graph = try targetGraph()
        let render = closure(of: "Renders", in: graph)
        XCTAssertTrue(render.isSuperset(of: ["Engine", "Presets", "Inputs", "SoundFiles", "Reports"]), render.sorted().description)
        for live in ["CJack", "CLiblo", "JackBackend", "OSC", "Runs", "WebSurface", "Sensors", "CSystemd", "LSL", "CLSL"] {
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

    /// What a target declares is what its sources import, no more and no less (a dependency
    /// declared and never imported hides the real layering; one imported and not declared
    /// builds only through another's), and the executable, which parses options and prints,
    /// imports no C target. Targets without Swift sources (the C shims) are read by their
    /// headers, not here.
    func testEveryTargetDeclaresExactlyWhatItImports() throws {
        let targets = try declaredTargets()
        XCTAssertGreaterThan(targets.count, 30, "the package was read")
        var swiftTargets = 0
        for (name, declared) in targets.sorted(by: { $0.key < $1.key }) where declared.type != "system-target" {
            let imported = try imports(of: declared)
            guard !imported.isEmpty else { continue }
            swiftTargets += 1
            let ours = imported.filter { targets[$0] != nil }
            XCTAssertEqual(Set(declared.dependencies).subtracting(imported), [], "\(name) declares these and never imports them")
            XCTAssertEqual(ours.subtracting(declared.dependencies), [], "\(name) imports these without declaring them")
        }
        XCTAssertGreaterThan(swiftTargets, 25)
        let executable = try imports(of: try XCTUnwrap(targets["pulsejack"]))
        XCTAssertEqual(executable.filter { $0.hasPrefix("C") && targets[$0] != nil }, [], "the executable imports a C target")
    }

    /// The architecture doc's layer table is the package: every library and executable target
    /// under `Sources` has a row, each row's "depends on" is exactly what Package.swift declares
    /// (which the test above holds to the imports), and everything a target depends on sits in a
    /// row above it — so the table cannot drift from the build again.
    func testTheArchitecturesLayerTableIsThePackage() throws {
        let targets = try declaredTargets()
        let doc = try String(contentsOf: Subprocess.repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let lines = doc.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.firstIndex(of: "| target | layer | what it owns | depends on |"), "the layer table")
        let names = { (cell: String) -> [String] in cell.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element) }
        var above: Set<String> = [], rows: [String] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| ") else { break }
            let cells = line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
            XCTAssertEqual(cells.count, 4, line)
            let row = names(cells[0]), dependsOn = names(cells[3])
            for target in row {
                let declared = try XCTUnwrap(targets[target], "\(target) is in the table and not in Package.swift")
                let ours = declared.dependencies.filter { targets[$0] != nil }
                XCTAssertEqual(Set(dependsOn), Set(ours), "\(target)'s row says it depends on \(dependsOn); Package.swift declares \(ours)")
                XCTAssertEqual(Set(ours).subtracting(above), [], "\(target) depends on targets below it in the table")
            }
            rows += row
            above.formUnion(row)
        }
        let inSources = targets.filter { $0.value.type != "test" && $0.value.folder.hasPrefix("Sources/") }.map(\.key)
        XCTAssertEqual(Set(inSources).subtracting(rows).sorted(), [], "targets under Sources with no row")
        XCTAssertEqual(rows.count, Set(rows).count, "a target in two rows")
    }
}
