import Foundation
import Glibc
import TestSupport
import XCTest

/// A render paused from outside (SIGSTOP, as a machine paused or a laptop suspended stops every
/// thread at once) goes on when it is resumed: the pause is nobody's stall.
extension MisbehavingPluginTests {
    /// Paused for longer than the watchdog's limit while the render thread waits on an isolated
    /// instrument that hangs: the watchdog does not stop the render, the instrument is still
    /// failed for its own hang, and the file is the one an unpaused render makes, sample for
    /// sample. Seen in CI: the render stopped with "plugin victim has not returned for 17.9 s".
    func testARenderPausedWhileAnIsolatedPluginHangsIsNotStopped() throws {
        let text = preset(MisbehavingPlugins.uri("hang"), at: .instrument, extra: "    isolate: true\n")
        let (plain, reference) = try render(text, name: "unpaused", seconds: 2.5, arguments: ["--watchdog", "3"], timeout: 60)
        XCTAssertEqual(plain.status, 0, plain.stderr)

        let file = folder.file("paused.yaml"), out = folder.file("paused.wav")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.pulsejack)
        process.arguments = ["render", "--preset", file, "--session", folder.file("120.csv"), "--out", out, "--duration", "2.5",
                             "--watchdog", "3"]
        process.environment = ProcessInfo.processInfo.environment.merging(["LV2_PATH": lv2Path]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        Subprocess.keepForTheSuite(process)
        try Subprocess.launch(process)
        let render = process.processIdentifier
        // The hang: once the watchdog runs (the render has begun), the child burning a core.
        let hung = Self.waitForASpinningChild(of: render, seconds: 20)
        if let hung {
            kill(render, SIGSTOP)
            kill(hung, SIGSTOP)
            Thread.sleep(forTimeInterval: 4)
            kill(hung, SIGCONT)
            kill(render, SIGCONT)
        }
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertNotNil(hung, "the isolated instrument's hang was never seen: \(said)")
        XCTAssertEqual(process.terminationStatus, 0, said)
        XCTAssertFalse(said.contains("has not returned"), said)
        XCTAssertTrue(said.contains("plugin victim (Misbehaving hang instrument), isolated: it missed its deadline"), said)
        let expected = try XCTUnwrap(reference).channels, got = try WavFile(path: out).channels
        XCTAssertEqual(got[1].count, expected[1].count)
        var differing = 0, loudest: Float = 0
        for channel in 0..<2 {
            for frame in 0..<min(got[channel].count, expected[channel].count) where got[channel][frame] != expected[channel][frame] {
                differing += 1
            }
            loudest = max(loudest, expected[channel].map(abs).max() ?? 0)
        }
        XCTAssertGreaterThan(loudest, 0.1, "both voices played")
        XCTAssertEqual(differing, 0, "the paused render's file is the unpaused one's")
    }

    /// The render's child process once the render is under way (its watchdog thread is there)
    /// and the child has used at least 60 ms of CPU in 100 ms: the hang, a busy loop.
    private static func waitForASpinningChild(of pid: pid_t, seconds: Double) -> pid_t? {
        let limit = Date().addingTimeInterval(seconds)
        var seen: [pid_t: [(at: Date, ticks: Int)]] = [:]
        while Date() < limit, kill(pid, 0) == 0 {
            usleep(10_000)
            guard ProcessThreads.of(pid).contains(where: { $0.name == "pj-watchdog" }) else { continue }
            for child in ChildProcesses.of(pid) {
                guard let ticks = ChildProcesses.cpuTicks(of: child) else { continue }
                let now = Date()
                seen[child, default: []].append((now, ticks))
                seen[child]!.removeAll { now.timeIntervalSince($0.at) > 0.1 }
                if let first = seen[child]!.first, ticks - first.ticks >= 6 { return child }
            }
        }
        return nil
    }
}
