import Foundation
import TestSupport
import XCTest
import Plugins

/// The LV2 catalog against lilv's own command-line tools (lv2ls, lv2info from lilv-utils) on the
/// real plugins Debian installs (mda-lv2, lv2-examples).
final class PluginCatalogTests: XCTestCase {
    private func tool(_ name: String) throws -> String {
        guard let path = Subprocess.which(name) else { throw XCTSkip("\(name) is not installed (make test installs lilv-utils)") }
        return path
    }

    /// One port as lv2info prints it.
    private struct Port {
        var types: [String] = []
        var symbol = ""
        var minimum, maximum, fallback: Float?
    }

    private func lv2info(_ uri: String) throws -> [Port] {
        let output = try Subprocess.run(try tool("lv2info"), [uri]).stdout
        var ports: [Port] = []
        var typing = false
        for raw in output.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("Port ") && line.hasSuffix(":") { ports.append(Port()); typing = false; continue }
            guard !ports.isEmpty else { continue }
            func value(_ key: String) -> String? {
                line.hasPrefix(key) ? line.dropFirst(key.count).trimmingCharacters(in: .whitespaces) : nil
            }
            if let type = value("Type:") { ports[ports.count - 1].types.append(type); typing = true }
            else if typing && line.hasPrefix("http") { ports[ports.count - 1].types.append(line) }
            else {
                typing = false
                if let symbol = value("Symbol:") { ports[ports.count - 1].symbol = symbol }
                if let number = value("Minimum:") { ports[ports.count - 1].minimum = Float(number) }
                if let number = value("Maximum:") { ports[ports.count - 1].maximum = Float(number) }
                if let number = value("Default:") { ports[ports.count - 1].fallback = Float(number) }
            }
        }
        return ports
    }

    func testTheCatalogListsWhatLv2lsListsWithThePortsLv2infoShows() throws {
        let listed = try Subprocess.run(try tool("lv2ls"), []).stdout.split(separator: "\n").map(String.init)
        let lv2 = PluginCatalog().plugins.filter { CLAPWorld.id(of: $0.uri) == nil }
        XCTAssertEqual(lv2.map(\.uri), listed.sorted())
        XCTAssertTrue(listed.contains("http://drobilla.net/plugins/mda/Limiter"), "mda-lv2 is installed")
        for plugin in lv2 {
            let ports = try lv2info(plugin.uri)
            func count(_ kind: String, _ direction: String) -> Int {
                ports.filter { $0.types.contains { $0.hasSuffix(kind) } && $0.types.contains { $0.hasSuffix(direction) } }.count
            }
            XCTAssertEqual(plugin.audioInputs, count("#AudioPort", "#InputPort"), plugin.uri)
            XCTAssertEqual(plugin.audioOutputs, count("#AudioPort", "#OutputPort"), plugin.uri)
            let controls = ports.filter { $0.types.contains { $0.hasSuffix("#ControlPort") } }
            XCTAssertEqual(plugin.controls.map(\.symbol), controls.map(\.symbol), plugin.uri)
            for (ours, theirs) in zip(plugin.controls, controls) {
                // lv2info prints six decimals (printf's %f): equal to that precision.
                func same(_ a: Float?, _ b: Float?) -> Bool {
                    guard let a, let b else { return a == nil && b == nil }
                    return abs(a - b) <= 5e-7 + abs(b) * Float.ulpOfOne * 4
                }
                XCTAssertTrue(same(ours.minimum, theirs.minimum), "\(plugin.uri) \(ours.symbol): \(String(describing: ours.minimum))")
                XCTAssertTrue(same(ours.maximum, theirs.maximum), "\(plugin.uri) \(ours.symbol): \(String(describing: ours.maximum))")
                XCTAssertTrue(same(ours.default, theirs.fallback), "\(plugin.uri) \(ours.symbol): \(String(describing: ours.default))")
                XCTAssertEqual(ours.output, theirs.types.contains { $0.hasSuffix("#OutputPort") }, "\(plugin.uri) \(ours.symbol)")
            }
        }
        let fifths = try XCTUnwrap(lv2.first { $0.uri == "http://lv2plug.in/plugins/eg-fifths" })
        XCTAssertEqual([fifths.midiInputs, fifths.midiOutputs], [1, 1], "eg-fifths takes and sends MIDI")
    }

    func testAnUnknownURINamesTheClosestAndLV2PathIsHonoured() throws {
        let catalog = PluginCatalog()
        XCTAssertThrowsError(try catalog.plugin(uri: "http://drobilla.net/plugins/mda/Limitr")) { error in
            XCTAssertTrue("\(error)".contains("closest installed: http://drobilla.net/plugins/mda/Limiter"), "\(error)")
        }
        try Subprocess.requirePulsejack()
        // Only the bundles LV2_PATH names are seen.
        let folder = try TemporaryFolder("lv2").url
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: "/usr/lib/lv2/eg-amp.lv2", toPath: folder.appendingPathComponent("eg-amp.lv2").path)
        let run = try Subprocess.run(Subprocess.pulsejack, ["plugins", "--json"], environment: ["LV2_PATH": folder.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let listed = try JSONDecoder().decode([PluginDescription].self, from: Data(run.stdout.utf8))
        XCTAssertEqual(listed.map(\.uri).filter { CLAPWorld.id(of: $0) == nil }, ["http://lv2plug.in/plugins/eg-amp"])
        XCTAssertEqual(listed.first?.controls.first?.symbol, "gain")
        let unknown = try Subprocess.run(Subprocess.pulsejack, ["plugins", "--uri", "http://lv2plug.in/plugins/eg-amq"],
                                         environment: ["LV2_PATH": folder.path])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("closest installed: http://lv2plug.in/plugins/eg-amp"), unknown.stderr)
    }

    /// CLAP plugins are listed beside LV2's from every folder on CLAP_PATH and /usr/lib/clap, with
    /// their parameters as controls (the test's own plugin, whose parameters its source names).
    func testCLAPPluginsAreListedWithTheirParameters() throws {
        try Subprocess.requirePulsejack()
        let run = try Subprocess.run(Subprocess.pulsejack, ["plugins", "--json", "--filter", "clap:"],
                                     environment: ["CLAP_PATH": try MisbehavingPlugins.clapFolder()])
        XCTAssertEqual(run.status, 0, run.stderr)
        let listed = try JSONDecoder().decode([PluginDescription].self, from: Data(run.stdout.utf8))
        XCTAssertEqual(Set(listed.map(\.uri)).intersection(MisbehavingPlugins.clapBehaviours.map(MisbehavingPlugins.clapURI)).count, 4)
        let clean = try XCTUnwrap(listed.first { $0.uri == MisbehavingPlugins.clapURI("clean") })
        XCTAssertEqual(clean.controls.map(\.symbol), ["gain", "latency_frames", "timer_fires", "latency"])
        XCTAssertEqual(clean.controls.map(\.output), [false, false, true, true])
        XCTAssertEqual([clean.controls[0].minimum, clean.controls[0].maximum, clean.controls[0].default], [0, 4, 1])
        XCTAssertEqual([clean.audioInputs, clean.audioOutputs], [2, 2])
        let installed = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/clap")) ?? []).filter { $0.hasSuffix(".clap") }
        XCTAssertEqual(listed.filter { $0.uri.hasPrefix("clap:com.zamaudio.") }.count, installed.count, "one plugin a zam bundle")
    }
}
