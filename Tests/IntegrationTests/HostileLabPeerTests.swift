import Foundation
import JackPeers
import TestSupport
import XCTest

/// What a hostile or broken peer on the lab's bus can do to a show, each inside a network
/// namespace of the test's own (`LabNetwork`) on the private jackd, with pylsl as the peer:
/// NaN, ±Inf, 1e15-ahead and 1e9-behind time stamps and NaN, ±Inf and 1e38 values on a
/// markers, an RR, an ECG, an EEG and a signal inlet, a 1,000-channel EEG stream, and a stream
/// that vanishes and returns — all at once for 10 s; and the lab's own LSL configuration.
final class HostileLabPeerTests: LabNetworkTestCase {
    /// pulsejack stays alive for the 10 s, each inlet counts what it refused (stamps on all five,
    /// values on the four numeric ones), the wide stream is refused in one line, the signal's
    /// dropout is counted and it streams again, the recording is finite and readable, and SIGINT
    /// ends the run within a second.
    func testAHostilePeerCannotTakeTheShowDown() throws {
        let server = try prepare("lsl-hostile")
        let folder = try TemporaryFolder("lsl-hostile")
        defer { folder.remove() }
        let prefix = "pjh\(getpid())", name = "pj-hostile-\(getpid())", port = OSCEncoder.freePort()
        try """
        voices:
          - {name: click, kind: click, on_beat: false}
          - {name: beat, kind: click}
        performers:
          - ann
          - {name: bob, heart: "lsl:\(prefix)-ecg", eeg: "lsl:\(prefix)-wide"}
        modulations:
          - {from: lsl.\(prefix)-level.level, to: voice.click.gain, from_range: [0, 1], to_range: [0, 1], smooth: 0.2}
          - {from: lsl.\(prefix)-wide.E999, to: voice.beat.gain, from_range: [790, 810], to_range: [0.5, 1]}
        """.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let peer = try LSLPeer(["hostile", "--name", prefix, "--seconds", "13"], network: network)
        defer { peer.finish(seconds: 0) }
        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", folder.path, "--name", name, "--osc-port", "\(port)",
                                                 "--heart", "lsl:\(prefix)-rr", "--eeg", "lsl:\(prefix)-eeg", "--lsl-markers", "\(prefix)-marks",
                                                 "--record", folder.file("take.wav")], server: server, output: output, network: network)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server))
        Thread.sleep(forTimeInterval: 10)
        XCTAssertTrue(run.isRunning, "pulsejack is alive after 10 s of the hostile peer")
        let values = status(port)
        let interrupted = Date()
        run.interrupt()
        run.waitUntilExit()
        let stopping = Date().timeIntervalSince(interrupted)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(run.terminationStatus, 0, printed)
        XCTAssertLessThan(stopping, 1.0, "SIGINT ended the run in \(stopping) s")

        try checkTheInlets(values, prefix: prefix, printed: printed)

        // The take: readable, finite, as long as the run, with the markers' clicks in it.
        let take = try WavFile(path: folder.file("take.wav"))
        XCTAssertGreaterThan(Double(take.channels[0].count) / Double(take.sampleRate), 9.5)
        XCTAssertTrue(take.channels.allSatisfy { $0.allSatisfy(\.isFinite) }, "the output stays finite")
        XCTAssertGreaterThan(WavFile.onsets(take.channels[0], threshold: 0.05).count, 10, "the good markers and beats play")
    }

    /// Each inlet counted what it refused and played the rest; the wide stream refused as EEG
    /// in one line and read whole as signals.
    private func checkTheInlets(_ values: [String: Any], prefix: String, printed: String) throws {
        // Each inlet, found by its stream's name.
        func inlet(_ stream: String) -> String? {
            (0..<8).map { "lsl_in_\($0)" }.first { values["\($0)_name"] as? String == stream }
        }
        for stream in ["marks", "rr", "ecg", "eeg", "level"] {
            guard let key = inlet("\(prefix)-\(stream)") else {
                XCTFail("no inlet read \(prefix)-\(stream): \(values) \(printed)")
                continue
            }
            XCTAssertGreaterThan(values["\(key)_samples"] as? Int ?? 0, 0, "\(stream) \(values)")
            XCTAssertGreaterThan(values["\(key)_bad_stamps"] as? Int ?? 0, 0, "\(stream): bad stamps counted \(values)")
            // A stamp far off is refused, never a gap of a billion lost samples.
            XCTAssertLessThanOrEqual(values["\(key)_lost"] as? Int ?? 0, 360 * 13, "\(stream): \(values)")
            if stream != "marks" {
                XCTAssertGreaterThan(values["\(key)_bad_values"] as? Int ?? 0, 0, "\(stream): bad values counted \(values)")
            }
        }
        // The good samples still play: the markers' clicks, the RR and ECG hearts' beats, the EEG's readings.
        for stream in ["rr", "ecg", "eeg"] {
            XCTAssertGreaterThan(values["\(inlet("\(prefix)-\(stream)") ?? "")_beats"] as? Int ?? 0, 0, "\(stream) \(values)")
        }
        let level = try XCTUnwrap(inlet("\(prefix)-level"))
        XCTAssertEqual(values["\(level)_dropouts"] as? Int, 1, "the signal's stream vanished once \(values)")
        XCTAssertEqual(values["\(level)_state"] as? String, "streaming", "and came back \(values)")
        // The wide stream: as EEG, one clear line and no inlet reading it; its 1,000th channel as a
        // modulation's source, read at its rate (256 samples a second, not a trickle).
        func wide(_ role: String) -> String? {
            (0..<8).map { "lsl_in_\($0)" }.first { values["\($0)_role"] as? String == role && (values["\($0)_name"] as? String)?.contains("\(prefix)-wide") == true }
        }
        let wideEEG = try XCTUnwrap(wide("eeg"), "\(values)")
        XCTAssertTrue((values["\(wideEEG)_problem"] as? String ?? "").contains("too wide for band powers"), "\(values)")
        XCTAssertEqual(printed.components(separatedBy: "too wide for band powers").count - 1, 1, printed)
        let wideSignals = try XCTUnwrap(wide("signals"), "\(values)")
        XCTAssertGreaterThan(values["\(wideSignals)_samples"] as? Int ?? 0, 256 * 7, "read at its rate: \(values)")
        XCTAssertEqual(values["\(wideSignals)_lost"] as? Int, 0, "\(values)")
        XCTAssertFalse(printed.contains("Fatal error"), printed)
    }

    /// The lab's configuration is the lab's: with `LSLAPICFG` setting `SessionID`, pulsejack reads
    /// the outlet of that session and not another session's of the same name (pylsl's outlets, one
    /// in each), and lists only it; liblsl's own lines (the lab asks for INFO) come as pulsejack's.
    func testTheLabsSessionIsKeptAndLiblslSpeaksThroughPulsejack() throws {
        let server = try prepare("lsl-session")
        let folder = try TemporaryFolder("lsl-session")
        defer { folder.remove() }
        try "[lab]\nSessionID = pj-lab-\(getpid())\n[log]\nlevel = 0\n".write(toFile: folder.file("lab.cfg"), atomically: true, encoding: .utf8)
        try "[lab]\nSessionID = pj-other-\(getpid())\n".write(toFile: folder.file("other.cfg"), atomically: true, encoding: .utf8)
        let stream = "pj-session-rr-\(getpid())", name = "pj-session-\(getpid())", port = OSCEncoder.freePort()
        // 800 ms (75 BPM) in the lab's session, 500 ms (120 BPM) in the other.
        let ours = try LSLPeer(["rr", "--name", stream, "--on", "20", "--off", "0", "--again", "0", "--interval", "800"],
                               network: network, environment: ["LSLAPICFG": folder.file("lab.cfg")])
        defer { ours.finish(seconds: 0) }
        let theirs = try LSLPeer(["rr", "--name", stream, "--on", "20", "--off", "0", "--again", "0", "--interval", "500"],
                                 network: network, environment: ["LSLAPICFG": folder.file("other.cfg")])
        defer { theirs.finish(seconds: 0) }

        let listed = try network.run(Subprocess.pulsejack, ["lsl", "--wait", "1.5"], environment: ["LSLAPICFG": folder.file("lab.cfg")], timeout: 30)
        XCTAssertEqual(listed.stdout.split(separator: "\n").filter { $0.hasPrefix(stream + " ") }.count, 1,
                       "only the lab's session's: \(listed.stdout) \(listed.stderr)")
        // liblsl's INFO lines, as the lab asked, through pulsejack's own lines; none in liblsl's format.
        XCTAssertTrue(listed.stderr.contains("pulsejack: LSL: liblsl: "), listed.stderr)
        XCTAssertNil(listed.stderr.range(of: #"\d\d:\d\d:\d\d\.\d{3} \(|\| ?(INFO|WARN|ERR)\|"#, options: .regularExpression), listed.stderr)
        let outside = try network.run(Subprocess.pulsejack, ["lsl", "--wait", "1.5"], timeout: 30)
        XCTAssertFalse(outside.stdout.contains(stream), "the default session sees neither: \(outside.stdout)")

        let output = Pipe()
        let run = try Subprocess.startPulsejack(["run", "--preset", Subprocess.repository.appendingPathComponent("presets/click").path,
                                                 "--name", name, "--osc-port", "\(port)", "--heart", "lsl:\(stream)", "--record-session", folder.file("session.jsonl")],
                                                server: server, output: output, environment: ["LSLAPICFG": folder.file("lab.cfg")], network: network)
        defer { if run.isRunning { run.terminate() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server))
        var values: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            values = status(port)
            if (values["lsl_in_0_beats"] as? Int ?? 0) >= 6 { break }
            usleep(300_000)
        }
        run.interrupt()
        run.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertGreaterThanOrEqual(values["lsl_in_0_beats"] as? Int ?? 0, 6, "\(values) \(printed)")
        // Every interval the heart had is the lab's session's 800 ms, none the other's 500 ms.
        let intervals = try String(contentsOfFile: folder.file("session.jsonl"), encoding: .utf8).split(separator: "\n").dropFirst()
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "rr" }.flatMap { $0["values"] as? [Double] ?? [] }
        XCTAssertGreaterThanOrEqual(intervals.count, 5, printed)
        for interval in intervals { XCTAssertEqual(interval, 0.8, accuracy: 1.0 / 1024, "\(intervals)") }
    }
}
