import Foundation
import TestSupport
import XCTest

/// `CrashReport` on a real crash: a render whose plugin, hosted in the engine's own process
/// (not isolated), dereferences null in its run after its first second.
final class CrashReportTests: XCTestCase {
    func testACrashedRunIsSummedUpInOneLineNamingTheSignalTheThreadAndTheFrame() throws {
        try Subprocess.requirePulsejack()
        let folder = try TemporaryFolder("crash-report")
        let preset = folder.file("segfault.yaml"), session = folder.file("120.csv"), out = folder.file("out.wav")
        try ("name: t\nvoices:\n  - name: victim\n    kind: click\n    inserts:\n      - plugin: \(MisbehavingPlugins.uri("segfault"))\n")
            .write(toFile: preset, atomically: true, encoding: .utf8)
        try "time,bpm\n0,120\n".write(toFile: session, atomically: true, encoding: .utf8)
        let run = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", preset, "--session", session, "--out", out, "--duration", "2"],
                                     environment: ["LV2_PATH": try MisbehavingPlugins.lv2Path()], timeout: 60)
        XCTAssertEqual(run.status, SIGSEGV, run.stderr)
        let line = CrashReport.line(signal: run.status, printed: run.stdout + run.stderr)
        XCTAssertFalse(line.contains("\n"), line)
        XCTAssertTrue(line.hasPrefix("died of signal 11 (Segmentation fault); before the backtrace: "), line)
        XCTAssertTrue(line.contains("*** Program crashed: "), line)
        // The thread that ran the plugin (the render's own), and the plugin's frame on top.
        XCTAssertNotNil(line.range(of: #"Thread \d+ ("[^"]+" )?crashed: \| 0 .* in misbehave\.so"#, options: .regularExpression), line)
    }
}
