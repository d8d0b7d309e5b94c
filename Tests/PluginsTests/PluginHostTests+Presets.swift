import Engine
import Foundation
import Inputs
import Plugins
import Presets
import Realtime
import TestSupport
import UserFiles
import XCTest

/// A plugin's own presets (LV2's `pset:Preset`): listed as its Turtle says, read here with a
/// parser of the test's own; loaded by name at start (the preset's values exactly, `controls:`
/// over them) and live (`/voice/<name>/insert/<n>/preset s NAME`), rendering what the same
/// values set by hand render; an unknown name one line naming the preset's file and line.
extension PluginHostTests {
    static let leslie = "http://drobilla.net/plugins/mda/Leslie"
    static let leslieTurtle = "/usr/lib/lv2/mda.lv2/Leslie-presets.ttl"

    /// Each preset of `plugin` in `path`: its label and its port values, read from the Turtle.
    static func presets(in path: String, of plugin: String) throws -> [String: [String: Float]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let label = try NSRegularExpression(pattern: #"rdfs:label "([^"]*)""#)
        let value = try NSRegularExpression(pattern: #"lv2:symbol "([^"]+)" ;\s*pset:value ([-+0-9.eE]+)"#)
        var found: [String: [String: Float]] = [:]
        for block in text.components(separatedBy: "\n\n") where block.contains("lv2:appliesTo <\(plugin)>") {
            func groups(_ expression: NSRegularExpression) -> [[String]] {
                expression.matches(in: block, range: NSRange(block.startIndex..., in: block)).map { match in
                    (1..<match.numberOfRanges).map { String(block[Range(match.range(at: $0), in: block)!]) }
                }
            }
            guard let name = groups(label).first?.first else { continue }
            found[name] = Dictionary(uniqueKeysWithValues: groups(value).map { ($0[0], Float($0[1])!) })
        }
        return found
    }

    /// The values of `instance`'s input controls by symbol.
    static func controls(of instance: PluginInstance) -> [String: Float] {
        Dictionary(uniqueKeysWithValues: instance.ports.filter { $0.kind == .control && $0.isInput }.map {
            ($0.symbol, instance.controlValues[Int($0.index)])
        })
    }

    func testEachPresetIsListedAndLoadsExactlyItsPortValues() throws {
        let turtle = try Self.presets(in: Self.leslieTurtle, of: Self.leslie)
        XCTAssertGreaterThan(turtle.count, 2)
        XCTAssertEqual(Set(PluginWorld.shared.presets(of: Self.leslie).map(\.name)), Set(turtle.keys))
        let builder = PluginBuilder(sampleRate: 48_000, maxFrames: 256, offline: true, stateFolder: nil)
        for (name, values) in turtle {
            for isolate in [false, true] {
                let instance = try builder.instance(Self.leslie, controls: [:], preset: name, key: "leslie", isolate: isolate) { _, message in
                    InputError(file: "test", message)
                }
                let controls = Self.controls(of: instance)
                for (symbol, value) in values { XCTAssertEqual(controls[symbol], value, "\(name) \(symbol), isolated \(isolate)") }
            }
        }
        let zero = try XCTUnwrap(Self.presets(in: "/usr/lib/lv2/ZamDelay.lv2/presets.ttl", of: "urn:zamaudio:ZamDelay")["Zero"] ?? [
            "inv": 0, "time": 160, "sync": 0, "lpf": 6000, "div": 3, "gain": 0, "drywet": 0.5, "feedb": 0,
        ])
        let delay = try builder.instance("urn:zamaudio:ZamDelay", controls: ["time": 20], preset: "Zero", key: "zam") { _, message in
            InputError(file: "test", message)
        }
        XCTAssertEqual(PluginWorld.shared.presets(of: "urn:zamaudio:ZamDelay").map(\.name), ["Zero"])
        XCTAssertEqual(Self.controls(of: delay).filter { zero[$0.key] != nil }, zero.merging(["time": 20]) { $1 }, "controls: over the preset")
    }

    func testAPresetRendersAsItsValuesSetByHandAtStartAndLive() throws {
        let frames = 12_288
        _ = try writeNoise(frames: frames)
        let values = try XCTUnwrap(Self.presets(in: Self.leslieTurtle, of: Self.leslie)["Slow"])
        let byHand = values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let named = render(try self.engine(inserts: "      - {plugin: '\(Self.leslie)', preset: Slow}", period: 256, sources: [ring]),
                                ring: ring, frames: frames, period: 256, messages: [])
        let set = render(try self.engine(inserts: "      - {plugin: '\(Self.leslie)', controls: {\(byHand)}}", period: 256, sources: [ring]),
                              ring: ring, frames: frames, period: 256, messages: [])
        XCTAssertGreaterThan(named.left.map(abs).max() ?? 0, 0.01)
        XCTAssertEqual(named.left, set.left)
        XCTAssertEqual(named.right, set.right)

        // Live: the route, then fresh instances with the preset swapped in at the message's frame.
        let engine = try self.engine(inserts: "      - {plugin: '\(Self.leslie)'}", period: 256, sources: [ring])
        let routes = OSCRoutes(voices: engine.handle.voiceNames, inserts: engine.handle.insertRoutes())
        XCTAssertEqual(routes.route(OSCMessage(address: "/voice/noise/insert/1/preset", arguments: [.string("Slow")])),
                       .request(.loadInsertPreset(place: "noise", insert: 1, preset: "Slow")))
        XCTAssertTrue(ring.producer.push(try engine.handle.insertPresetMessage(place: "noise", insert: 1, preset: "Slow", frame: 0)))
        let live = render(engine, ring: ring, frames: frames, period: 256, messages: [])
        XCTAssertEqual(live.left, set.left, "the preset loaded live at frame 0 renders as set by hand")
        XCTAssertThrowsError(try engine.handle.insertPresetMessage(place: "noise", insert: 1, preset: "Nope")) { error in
            XCTAssertTrue("\(error)".contains("has no preset 'Nope'; its presets: "), "\(error)")
        }
    }

    func testAnUnknownPresetIsOneLineNamingThePresetsLine() throws {
        try Subprocess.requirePulsejack()
        let preset = folder.appendingPathComponent("bad-preset.yaml")
        try "voices:\n  - name: organ\n    kind: click\n    inserts:\n      - plugin: \(Self.leslie)\n        preset: Nope\n"
            .write(to: preset, atomically: true, encoding: .utf8)
        let session = folder.appendingPathComponent("session.csv")
        try "time,bpm\n0,80\n".write(to: session, atomically: true, encoding: .utf8)
        let run = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", preset.path, "--session", session.path,
                                                             "--out", folder.appendingPathComponent("out.wav").path])
        XCTAssertNotEqual(run.status, 0)
        let lines = run.stderr.split(separator: "\n").filter { !$0.isEmpty && !$0.contains("loading LV2 plugin") }
        XCTAssertEqual(lines.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(preset.path):6:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("has no preset 'Nope'; its presets: "), run.stderr)
        let listed = try Subprocess.run(Subprocess.pulsejack, ["plugins", "--presets", Self.leslie])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(Set(listed.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }),
                       Set(try Self.presets(in: Self.leslieTurtle, of: Self.leslie).keys), listed.stdout)
    }
}
