import Foundation
import TestSupport
import XCTest

/// The project's own misbehaving LV2 plugins (`Tests/MisbehavingPlugins`), each beside a clean
/// click voice, rendered by the `pulsejack` tool: nothing non-finite or subnormal reaches the
/// file, the clean voice plays as it would alone, and the plugin is named.
final class MisbehavingPluginTests: XCTestCase {
    var folder: TemporaryFolder!
    var lv2Path = ""

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("misbehaving")
        lv2Path = try MisbehavingPlugins.lv2Path()
        try "time,bpm\n0,120\n".write(toFile: folder.file("120.csv"), atomically: true, encoding: .utf8)
    }

    /// Where a misbehaving plugin sits beside the clean click (hard left): on a second click
    /// (hard right), on the master, or as an instrument played on every beat (hard right).
    enum Place: String, CaseIterable { case voiceInsert, masterInsert, instrument }

    func preset(_ uri: String, at place: Place, extra: String = "") -> String {
        let bystander = "  - {name: bystander, kind: click, gain: 0.5, pan: -1}\n"
        switch place {
        case .voiceInsert:
            return "name: t\nvoices:\n" + bystander + "  - name: victim\n    kind: click\n    gain: 0.5\n    pan: 1\n    inserts:\n"
                + "      - plugin: \(uri)\n\(extra)"
        case .masterInsert:
            return "name: t\nvoices:\n" + bystander + "master:\n  inserts:\n    - plugin: \(uri)\n\(extra)"
        case .instrument:
            return "name: t\nvoices:\n" + bystander + "  - name: victim\n    kind: lv2\n    plugin: \(uri)-instrument\n    note: 60\n"
                + "    length: 0.1\n    pan: 1\n\(extra)"
        }
    }

    @discardableResult
    func render(_ text: String, name: String, seconds: Double = 3.5, arguments: [String] = [], timeout: Double? = nil) throws
        -> (run: Subprocess, wav: WavFile?) {
        let file = folder.file("\(name).yaml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let out = folder.file("\(name).wav")
        let run = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", file, "--session", folder.file("120.csv"), "--out", out,
                                                            "--duration", "\(seconds)"] + arguments,
                                     environment: ["LV2_PATH": lv2Path], timeout: timeout)
        return (run, try? WavFile(path: out))
    }

    /// The clean click alone, as the reference for the left channel.
    func bystanderAlone() throws -> [Float] {
        let (run, wav) = try render("name: t\nvoices:\n  - {name: bystander, kind: click, gain: 0.5, pan: -1}\n", name: "alone")
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(wav).channels[0]
    }

    /// Counts of the samples no output may carry.
    func forbidden(_ samples: [Float]) -> (nonFinite: Int, subnormal: Int) {
        var nonFinite = 0, subnormal = 0
        for sample in samples {
            if !sample.isFinite { nonFinite += 1 } else if sample.isSubnormal { subnormal += 1 }
        }
        return (nonFinite, subnormal)
    }

    func testNaNInfAndDenormalsNeverReachTheFileAndTheCleanVoicePlaysOn() throws {
        let reference = try bystanderAlone()
        for behaviour in ["nan", "inf", "denormal"] {
            for place in Place.allCases {
                let label = "\(behaviour) as \(place)"
                let (run, wav) = try render(preset(MisbehavingPlugins.uri(behaviour), at: place), name: "\(behaviour)-\(place)")
                XCTAssertEqual(run.status, 0, "\(label): \(run.stderr)")
                let output = try XCTUnwrap(wav, label)
                XCTAssertEqual(output.frameCount, reference.count, label)
                for channel in 0..<2 {
                    let found = forbidden(output.channels[channel])
                    XCTAssertEqual(found.nonFinite, 0, "\(label): channel \(channel)")
                    XCTAssertEqual(found.subnormal, 0, "\(label): channel \(channel)")
                }
                let place = place == .masterInsert ? "master.insert1" : place == .voiceInsert ? "victim.insert1" : "victim"
                if behaviour == "denormal" {
                    // Subnormals are flushed, not a fault: the plugin plays on.
                    XCTAssertFalse(run.stderr.contains("bypassed"), "\(label): \(run.stderr)")
                } else {
                    XCTAssertTrue(run.stderr.contains("plugin \(place) (Misbehaving \(behaviour)"), "\(label): \(run.stderr)")
                    XCTAssertTrue(run.stderr.contains("output non-finite samples"), "\(label): \(run.stderr)")
                }
                let left = output.channels[0]
                if place == "master.insert1" && behaviour == "denormal" {
                    // The plugin's whole output is subnormal from its second second: flushed, the mix is silence.
                    var before: Float = 0, after: Float = 0
                    for frame in 0..<48_000 { before = max(before, abs(left[frame] - reference[frame])) }
                    for frame in 48_256..<left.count { after = max(after, abs(left[frame])) }
                    XCTAssertLessThanOrEqual(before, 1e-6, label)
                    XCTAssertEqual(after, 0, label)
                } else if place == "master.insert1" {
                    // On the master, the fault silences the mix until the guard benches the insert
                    // (8 periods) and it passes the mix dry: every click outside that moment is
                    // the clean voice's own.
                    var differing: [Int] = []
                    for frame in 0..<left.count where abs(left[frame] - reference[frame]) > 1e-6 { differing.append(frame) }
                    let first = differing.first ?? 0, last = differing.last ?? 0
                    XCTAssertLessThanOrEqual(last - first, 8 * 256 + 256, "\(label): the mix differs only while the guard decides")
                    XCTAssertGreaterThanOrEqual(first, 48_000, "\(label): not before the plugin's fault")
                } else {
                    // The clean voice plays as it would alone, sample for sample.
                    var worst: Float = 0
                    for frame in 0..<left.count { worst = max(worst, abs(left[frame] - reference[frame])) }
                    XCTAssertLessThanOrEqual(worst, 1e-6, label)
                }
            }
        }
    }

    /// A plugin benched for non-finite output comes back, renewed, and plays again: an
    /// instrument that is silent only from its fault to its restart.
    func testABenchedInstrumentIsRestartedAndPlaysAgain() throws {
        let (run, wav) = try render(preset(MisbehavingPlugins.uri("nan"), at: .instrument), name: "restart", seconds: 3)
        XCTAssertEqual(run.status, 0, run.stderr)
        let right = try XCTUnwrap(wav).channels[1]
        // Beats every 24 000 frames; the plugin turns to NaN after one second (beat 2), is benched
        // within 8 periods, renewed at the next 100 ms, and plays the beats after that for a second.
        func loudness(beat: Int) -> Float {
            var peak: Float = 0
            for frame in beat * 24_000..<min(beat * 24_000 + 4_800, right.count) { peak = max(peak, abs(right[frame])) }
            return peak
        }
        XCTAssertGreaterThan(loudness(beat: 1), 0.2, "before the fault")
        XCTAssertEqual(loudness(beat: 2), 0, "the fault: silence, not NaN")
        XCTAssertGreaterThan(loudness(beat: 3), 0.2, "restarted")
        XCTAssertTrue(run.stderr.contains("restarting it with its last state"), run.stderr)
    }

    /// Isolated (`--isolate-plugins`), plugins render the same samples as in process: the shipped
    /// plugins preset (mda EPiano and JX10 as voices, mda Ambience and x42's limiter as inserts).
    func testIsolatedPluginsRenderTheSameSamplesAsInProcess() throws {
        let text = try String(contentsOfFile: Subprocess.repository.appendingPathComponent("presets/plugins/preset.yaml").path, encoding: .utf8)
        let (inProcess, reference) = try render(text, name: "in-process", seconds: 4)
        let (isolated, output) = try render(text, name: "isolated", seconds: 4, arguments: ["--isolate-plugins"])
        XCTAssertEqual(inProcess.status, 0, inProcess.stderr)
        XCTAssertEqual(isolated.status, 0, isolated.stderr)
        XCTAssertFalse(isolated.stderr.contains("isolated:"), "no process failed: \(isolated.stderr)")
        let expected = try XCTUnwrap(reference).channels, got = try XCTUnwrap(output).channels
        XCTAssertEqual(got[0].count, expected[0].count)
        var worst: Float = 0, loudest: Float = 0
        for channel in 0..<2 {
            for frame in 0..<min(got[channel].count, expected[channel].count) {
                worst = max(worst, abs(got[channel][frame] - expected[channel][frame]))
                loudest = max(loudest, abs(expected[channel][frame]))
            }
        }
        XCTAssertGreaterThan(loudest, 0.1, "the plugins played")
        XCTAssertLessThanOrEqual(worst, 1e-6)
    }

    /// An isolated plugin that crashes in its run, hangs, or crashes in instantiate() or restore() costs only
    /// itself, as a voice insert, a master insert and an instrument: the render ends normally,
    /// the clean voice plays as it would alone (an insert out passes its input dry), nothing
    /// non-finite, the plugin and what it did named; after a crash in its run it comes back in a
    /// new process and plays again.
    func testAnIsolatedPluginThatCrashesOrHangsCostsOnlyItself() throws {
        let reference = try bystanderAlone()
        let reasons = ["segfault": "it crashed (signal 11", "hang": "it missed its deadline", "crash-instantiate": "it crashed (signal 11",
                       "crash-restore": "it crashed (signal 11"]
        for (behaviour, reason) in reasons.sorted(by: { $0.key < $1.key }) {
            for place in Place.allCases {
                let label = "\(behaviour) as \(place)"
                let seconds = behaviour == "segfault" ? 2.5 : 1.5
                // The instrument says it in its preset, the inserts through the flag.
                var extra: String = place == .instrument ? "    isolate: true\n" : ""
                if behaviour == "crash-restore" {
                    // A state of its own, so its restore() runs (and crashes) in its process.
                    let indent = String(repeating: " ", count: place == .voiceInsert ? 8 : place == .masterInsert ? 6 : 4)
                    extra += indent + "state: " + (try MisbehavingPlugins.savedState(in: folder.url, for: MisbehavingPlugins.uri(behaviour, instrument: place == .instrument))) + "\n"
                }
                let (run, wav) = try render(preset(MisbehavingPlugins.uri(behaviour), at: place, extra: extra), name: "isolated-\(behaviour)-\(place)",
                                            seconds: seconds, arguments: place == .instrument ? [] : ["--isolate-plugins"], timeout: 60)
                XCTAssertEqual(run.status, 0, "\(label): \(run.stderr)")
                let output = try XCTUnwrap(wav, label)
                for channel in 0..<2 { XCTAssertEqual(forbidden(output.channels[channel]).nonFinite, 0, "\(label): channel \(channel)") }
                let left = output.channels[0]
                var worst: Float = 0
                for frame in 0..<min(left.count, reference.count) { worst = max(worst, abs(left[frame] - reference[frame])) }
                XCTAssertLessThanOrEqual(worst, 1e-6, "\(label): the clean voice plays as alone")
                let name = place == .masterInsert ? "master.insert1" : place == .voiceInsert ? "victim.insert1" : "victim"
                XCTAssertTrue(run.stderr.contains("plugin \(name) (Misbehaving \(behaviour)"), "\(label): \(run.stderr)")
                XCTAssertTrue(run.stderr.contains("isolated: \(reason)"), "\(label): \(run.stderr)")
                guard behaviour == "segfault" else { continue }
                XCTAssertTrue(run.stderr.contains("is back in a new process "), "\(label): \(run.stderr)")
                XCTAssertTrue(run.stderr.contains(" after it failed (restart 1)"), "\(label): \(run.stderr)")
                if place == .instrument {
                    // Beats every 24 000 frames: the crash at one second (beat 2) silences it; the
                    // process is back within 100 ms of audio and plays beat 3.
                    let right = output.channels[1]
                    func loudness(beat: Int) -> Float {
                        var peak: Float = 0
                        for frame in beat * 24_000 + 4_800..<min(beat * 24_000 + 9_600, right.count) { peak = max(peak, abs(right[frame])) }
                        return peak
                    }
                    XCTAssertGreaterThan(loudness(beat: 1), 0.05, "\(label): before the crash")
                    XCTAssertEqual(loudness(beat: 2), 0, "\(label): silent after the crash")
                    XCTAssertGreaterThan(loudness(beat: 3), 0.05, "\(label): back")
                }
            }
        }
    }

    /// A latency that is not a number of frames within a second is refused and named, and every
    /// pulse fires once whatever the latency does, at every place. A master insert's latency
    /// moves the clean voice's pulses, an insert's or instrument's its own voice's.
    func testAbsurdLatenciesAreRefusedAndEachPulseFiresOnce() throws {
        for place in Place.allCases {
            for behaviour in ["latency-huge", "latency-negative", "latency-nan", "latency-flip"] {
                let label = "\(behaviour) as \(place)", events = folder.file("\(behaviour)-\(place).jsonl")
                let (run, _) = try render(preset(MisbehavingPlugins.uri(behaviour), at: place), name: "\(behaviour)-\(place)", seconds: 4,
                                          arguments: ["--events-out", events])
                XCTAssertEqual(run.status, 0, "\(label): \(run.stderr)")
                let voice = place == .masterInsert ? "\"bystander\"" : "\"victim\""
                var frames: [Int] = []
                for line in try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n") where line.contains(voice) {
                    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    frames.append(try XCTUnwrap(object["frame"] as? Int))
                }
                // 120 BPM for 4 s: beats 0…7, each fired exactly once (never twice, never piled up).
                XCTAssertEqual(frames.count, 8, "\(label): \(frames)")
                XCTAssertEqual(Set(frames).count, frames.count, "\(label): \(frames)")
                if behaviour != "latency-flip" {
                    // Refused: latency-free, so each fires on its beat's frame.
                    XCTAssertEqual(frames, (0..<8).map { $0 * 24_000 }, label)
                    XCTAssertTrue(run.stderr.contains("reported a latency of"), "\(label): \(run.stderr)")
                    XCTAssertTrue(run.stderr.contains("treated as latency-free"), "\(label): \(run.stderr)")
                }
            }
        }
    }

    /// Defaults beyond the float range or outside their range, and a range upside down, are named
    /// and never reach the plugin as ±Inf or out of range, at every place.
    func testAbsurdControlDataIsClampedOrRefusedAndNamed() throws {
        for place in Place.allCases {
            let (run, wav) = try render(preset(MisbehavingPlugins.uri("absurd-controls"), at: place), name: "absurd-\(place)", seconds: 1)
            XCTAssertEqual(run.status, 0, "\(place): \(run.stderr)")
            XCTAssertEqual(forbidden(try XCTUnwrap(wav).channels.flatMap { $0 }).nonFinite, 0, "\(place)")
            XCTAssertTrue(run.stderr.contains("port 'c0' has a default beyond the float range; it starts at 0"), "\(place): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("port 'c1' has its default 5 outside 0…1; it starts at 1"), "\(place): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("port 'c2' has a range beyond the float range"), "\(place): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("port 'c3'"), "\(place): \(run.stderr)")
        }
    }

    /// A plugin whose restore() crashes is never restored when it has no default state, at every
    /// place: the render plays. A state saved for another plugin is refused, naming the file.
    func testStateIsRestoredOnlyWhenItIsThePlugins() throws {
        for place in Place.allCases {
            let (run, _) = try render(preset(MisbehavingPlugins.uri("crash-restore"), at: place), name: "restore-\(place)", seconds: 1)
            XCTAssertEqual(run.status, 0, "\(place): \(run.stderr)")
        }
        let state = folder.url.appendingPathComponent("foreign")
        try FileManager.default.createDirectory(at: state.appendingPathComponent("1"), withIntermediateDirectories: true)
        try """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            @prefix pset: <http://lv2plug.in/ns/ext/presets#> .
            <> a pset:Preset ; lv2:appliesTo <http://drobilla.net/plugins/mda/Ambience> .
            """.write(to: state.appendingPathComponent("1/state.ttl"), atomically: true, encoding: .utf8)
        let (refused, _) = try render(preset(MisbehavingPlugins.uri("clean"), at: .voiceInsert, extra: "        state: \(state.path)\n"),
                                      name: "foreign", seconds: 1)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("Misbehaving clean (urn:pulsejack:misbehave:clean) cannot take a state saved for http://drobilla.net/plugins/mda/Ambience"),
                      refused.stderr)
    }

    /// A plugin stuck in its run stops the render after the watchdog's limit, named, with the file
    /// readable; SIGTERM is honoured the same way.
    func testTheRenderWatchdogNamesAStuckPluginAndKeepsTheFile() throws {
        let started = Date()
        let (run, wav) = try render(preset(MisbehavingPlugins.uri("hang"), at: .voiceInsert), name: "hang", seconds: 10,
                                    arguments: ["--watchdog", "2"], timeout: 60)
        XCTAssertEqual(run.status, 70, run.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertTrue(run.stderr.contains("plugin victim.insert1 has not returned for"), run.stderr)
        // The file is a WAV whose header matches what reached it (the plugin hung at 1 s).
        let output = try XCTUnwrap(wav)
        XCTAssertEqual(output.channels.count, 2)

        let file = folder.file("hang.yaml"), out = folder.file("hang-term.wav")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.pulsejack)
        process.arguments = ["render", "--preset", file, "--session", folder.file("120.csv"), "--out", out, "--duration", "10"]
        process.environment = ProcessInfo.processInfo.environment.merging(["LV2_PATH": lv2Path]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        Subprocess.keepForTheSuite(process)
        try process.run()
        Thread.sleep(forTimeInterval: 2)
        process.terminate()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 128 + SIGTERM, text)
        XCTAssertTrue(text.contains("stopped by signal 15 while plugin victim.insert1 had not returned"), text)
    }

    /// "could not be instantiated" says why: here, the library has no `lv2_descriptor`.
    func testAPluginThatCannotBeInstantiatedSaysWhy() throws {
        let bundles = folder.url.appendingPathComponent("bundles/broken.lv2")
        try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
        try "int nothing_here(void) { return 0; }\n".write(to: bundles.appendingPathComponent("empty.c"), atomically: true, encoding: .utf8)
        let compile = try Subprocess.run("/usr/bin/cc", ["-shared", "-fPIC", "-o", bundles.appendingPathComponent("missing.so").path,
                                                         bundles.appendingPathComponent("empty.c").path])
        XCTAssertEqual(compile.status, 0, compile.stderr)
        try """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            <urn:pulsejack:broken> a lv2:Plugin ; lv2:binary <missing.so> ;
              <http://usefulinc.com/ns/doap#name> "Broken" ; lv2:port
              [ a lv2:InputPort, lv2:AudioPort ; lv2:index 0 ; lv2:symbol "in" ; lv2:name "In" ] ,
              [ a lv2:OutputPort, lv2:AudioPort ; lv2:index 1 ; lv2:symbol "out" ; lv2:name "Out" ] .
            """.write(to: bundles.appendingPathComponent("manifest.ttl"), atomically: true, encoding: .utf8)
        lv2Path = folder.url.appendingPathComponent("bundles").path
        let (run, _) = try render(preset("urn:pulsejack:broken", at: .voiceInsert), name: "broken", seconds: 1)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("pulsejack: loading LV2 plugin"), run.stderr)
        XCTAssertTrue(run.stderr.contains("could not be instantiated: no 'lv2_descriptor' in "), run.stderr)
    }
}
