import Foundation
import TestSupport
import XCTest

/// The project's own misbehaving CLAP plugins (`Tests/MisbehavingPlugins/misbehave-clap.c`)
/// beside a clean click, rendered by the `pulsejack` tool, as the LV2 ones are: a plugin that
/// puts out NaN is caught in process; one that hangs or crashes costs only its own process.
final class MisbehavingCLAPPluginTests: XCTestCase {
    var folder: TemporaryFolder!
    var clapPath = ""

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("misbehaving-clap")
        clapPath = try MisbehavingPlugins.clapFolder()
        try "time,bpm\n0,120\n".write(toFile: folder.file("120.csv"), atomically: true, encoding: .utf8)
    }

    func render(_ insert: String?, name: String, seconds: Double = 2.5, arguments: [String] = []) throws -> (run: Subprocess, left: [Float], right: [Float]) {
        var text = "name: t\nvoices:\n  - {name: bystander, kind: click, gain: 0.5, pan: -1}\n"
        if let insert { text += "  - name: victim\n    kind: click\n    gain: 0.5\n    pan: 1\n    inserts:\n      - plugin: \(insert)\n" }
        let file = folder.file("\(name).yaml"), out = folder.file("\(name).wav")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", file, "--session", folder.file("120.csv"), "--out", out,
                                                            "--duration", "\(seconds)"] + arguments,
                                     environment: ["CLAP_PATH": clapPath], timeout: 60)
        let wav = try XCTUnwrap(try? WavFile(path: out), "\(name): \(run.stderr)")
        return (run, wav.channels[0], wav.channels[1])
    }

    func testAHostileCLAPPluginIsSurvivedAsAHostileLV2OneIs() throws {
        let alone = try render(nil, name: "alone")
        XCTAssertEqual(alone.run.status, 0, alone.run.stderr)
        let cases: [(behaviour: String, isolated: Bool, said: String)] = [
            ("nan", false, "output non-finite samples"), ("nan", true, "output non-finite samples"),
            ("hang", true, "isolated: it missed its deadline"), ("segfault", true, "isolated: it crashed (signal 11"),
        ]
        for (behaviour, isolated, said) in cases {
            let label = "\(behaviour)\(isolated ? ", isolated" : "")"
            let rendered = try render(MisbehavingPlugins.clapURI(behaviour), name: "\(behaviour)-\(isolated)",
                                      arguments: isolated ? ["--isolate-plugins"] : [])
            XCTAssertEqual(rendered.run.status, 0, "\(label): \(rendered.run.stderr)")
            XCTAssertEqual((rendered.left + rendered.right).filter { !$0.isFinite }.count, 0, label)
            XCTAssertEqual(rendered.left.count, alone.left.count, label)
            var worst: Float = 0
            for frame in 0..<min(rendered.left.count, alone.left.count) { worst = max(worst, abs(rendered.left[frame] - alone.left[frame])) }
            XCTAssertLessThanOrEqual(worst, 1e-6, "\(label): the clean voice plays as alone")
            XCTAssertTrue(rendered.run.stderr.contains("plugin victim.insert1 (Misbehaving CLAP \(behaviour)"), "\(label): \(rendered.run.stderr)")
            XCTAssertTrue(rendered.run.stderr.contains(said), "\(label): \(rendered.run.stderr)")
            // Its first second is clean: the victim's clicks play through it before the fault.
            XCTAssertGreaterThan(rendered.right[0..<24_000].map(abs).max() ?? 0, 0.1, "\(label): it played before its fault")
            XCTAssertFalse(rendered.run.stderr.contains("not on the audio thread"), "\(label): \(rendered.run.stderr)")
        }
    }
}
