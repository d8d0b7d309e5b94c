import Reports
import Inputs
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import XCTest

/// The command-line tool as a user runs it: offline render, voices, demo and bad input.
final class CommandLineTests: XCTestCase {
    private var folder: URL!
    private var presets: URL { Subprocess.repository.appendingPathComponent("presets") }

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("cli").url
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func pulsejack(_ arguments: [String]) throws -> Subprocess {
        try Subprocess.run(Subprocess.pulsejack, arguments, in: folder)
    }

    /// A long render stopped by SIGINT or SIGTERM: it ends at the next period with a finished
    /// file holding what was rendered, read by sox and scipy.
    func testAnInterruptedRenderLeavesAFinishedFile() throws {
        for (signal, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            let out = folder.appendingPathComponent("long-\(name).wav").path
            let process = Process()
            Subprocess.keepForTheSuite(process)
            process.executableURL = URL(fileURLWithPath: Subprocess.pulsejack)
            process.arguments = ["render", "--preset", presets.appendingPathComponent("click").path,
                                 "--session", presets.appendingPathComponent("sessions/73bpm.csv").path,
                                 "--out", out, "--duration", "86400"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(1_000_000)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(process.terminationStatus, 128 + signal, printed)
            XCTAssertTrue(printed.hasPrefix("interrupted by \(name): rendered "), printed)
            let frames = try XCTUnwrap(Int(printed.split(separator: " ")[4]), printed)
            XCTAssertGreaterThan(frames, 0)
            XCTAssertLessThan(frames, 86_400 * 48_000)
            let reading = try IndependentWav.read(out)
            XCTAssertEqual(reading, IndependentWav.Reading(soxFrames: frames, scipyFrames: frames, scipyChannels: 2, sampleRate: 48_000))
        }
    }

    func testRenderWritesTheWavTheEventsAndASummaryLine() throws {
        let out = folder.appendingPathComponent("click.wav").path
        let events = folder.appendingPathComponent("events.jsonl").path
        let result = try pulsejack(["render", "--preset", presets.appendingPathComponent("click").path,
                                    "--session", presets.appendingPathComponent("sessions/73bpm.csv").path,
                                    "--out", out, "--events-out", events, "--duration", "120"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = result.stdout.split(separator: "\n")
        XCTAssertEqual(summary.count, 1, "piped, it prints one summary line: \(result.stdout)")
        XCTAssertTrue(summary[0].hasPrefix("rendered 5760000 frames"), result.stdout)
        XCTAssertTrue(summary[0].contains("146 beats"), result.stdout)

        struct Event: Decodable, Equatable { var frame: Int; var voice: String; var velocity: Double }
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
        let decoded = try lines.map { try JSONDecoder().decode(Event.self, from: Data($0.utf8)) }
        let expected = (0..<146).map { k in Event(frame: (2 * k * 60 * 48_000 + 73) / (2 * 73), voice: "click", velocity: 1) }
        XCTAssertEqual(decoded, expected)
        XCTAssertEqual(WavFile.onsets(try WavFile(path: out).channels[0]), expected.map(\.frame))
    }

    /// `--web-report`: one XHTML page, read back by Foundation's XML parser: a mark on the
    /// timeline for every fired voice the events log lists (same voice, same frame), the heart-rate
    /// curve through every tempo of the session file (read here), four radial traces; nothing to
    /// run or fetch.
    func testTheWebReportShowsEveryFiredVoiceTheTempoCurveAndTheRadialTrace() throws {
        let session = presets.appendingPathComponent("default/demo-session.csv").path
        let report = folder.appendingPathComponent("report.html").path, events = folder.appendingPathComponent("events.jsonl").path
        let result = try pulsejack(["render", "--session", session, "--out", folder.appendingPathComponent("demo.wav").path,
                                    "--events-out", events, "--web-report", report])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("web report → \(report)"), result.stdout)
        let page = try XMLDocument(contentsOf: URL(fileURLWithPath: report), options: [])
        func elements(_ name: String, _ attribute: String? = nil, _ value: String? = nil) throws -> [XMLElement] {
            try page.nodes(forXPath: "//*[local-name()='\(name)']").compactMap { $0 as? XMLElement }.filter { element in
                guard let attribute else { return true }
                return element.value(of: attribute) == value
            }
        }
        struct Event: Decodable { var frame: Int; var voice: String }
        let logged = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Event.self, from: Data($0.utf8)) }
        let marks = try elements("line", "class", "fired").map {
            ($0.value(of: "data-voice") ?? "", Int($0.value(of: "data-frame") ?? "") ?? -1)
        }
        XCTAssertGreaterThan(logged.count, 200)
        XCTAssertEqual(marks.map(\.0), logged.map(\.voice))
        XCTAssertEqual(marks.map(\.1), logged.map(\.frame))
        // The session's own tempo rows, each a step of the curve (two points: from its time to the next).
        let rows = try String(contentsOfFile: session, encoding: .utf8).split(separator: "\n")
            .filter { $0.first?.isNumber == true }
        let curve = try XCTUnwrap(try elements("polyline", "class", "bpm").first?.value(of: "points"))
        XCTAssertEqual(curve.split(separator: " ").count, 2 * rows.count)
        let traces = try elements("polyline", "class", "trace")
        XCTAssertEqual(traces.count, 4, "peak and RMS of each channel")
        XCTAssertTrue(traces.allSatisfy { ($0.value(of: "points")?.split(separator: " ").count ?? 0) > 1000 })
        let text = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertFalse(text.contains("<script") || text.contains("http://example") || text.contains("src="), "self-contained")
    }

    func testRenderHealthKitSessionAtAnotherRate() throws {
        let session = folder.appendingPathComponent("hk.json")
        try """
        {"items":[{"value":60,"unit":"count/min","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2015-10-08T22:53:59-0700","endDate":"2015-10-08T22:53:59-0700"},
                  {"value":120,"unit":"count/min","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2015-10-08T22:54:01-0700","endDate":"2015-10-08T22:54:01-0700"}]}
        """.write(to: session, atomically: true, encoding: .utf8)
        let events = folder.appendingPathComponent("events.jsonl").path
        let result = try pulsejack(["render", "--preset", presets.appendingPathComponent("click").path, "--session", session.path,
                                    "--out", folder.appendingPathComponent("hk.wav").path, "--events-out", events,
                                    "--rate", "44100", "--duration", "4"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let frames = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").map { line -> Int in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return object["frame"] as! Int
        }
        // 60 BPM for 2 s (beats at 0, 1, 2 s), then 120 BPM: every 0.5 s.
        XCTAssertEqual(frames, [0, 44_100, 88_200, 110_250, 132_300, 154_350])
    }

    func testSoloRendersOneVoice() throws {
        let events = folder.appendingPathComponent("solo.jsonl").path
        let result = try pulsejack(["render", "--session", presets.appendingPathComponent("default/demo-session.csv").path,
                                    "--out", folder.appendingPathComponent("solo.wav").path, "--events-out", events,
                                    "--solo", "bell", "--duration", "10"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let voices = Set(try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").map { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])["voice"] as! String
        })
        XCTAssertEqual(voices, ["bell"])
    }

    /// `render --stems`: a WAV per voice and the master, all as long as the render; the stems
    /// sum to the master within 1e-6, and each stem's onsets are exactly its voice's events.
    func testStemsAreAlignedSumToTheMasterAndHoldEachVoicesOnsets() throws {
        let preset = folder.appendingPathComponent("stems.yaml").path
        try """
            voices:
              - {name: low, kind: click, gain: 0.8, pan: -0.5}
              - {name: eighths, kind: click, gain: 0.7, subdivide: 2, pan: 0.6}
              - {name: bars, kind: click, gain: 0.6, every: 4}
              - {name: thump, kind: sample, file: \(presets.path)/sounds/thump.wav, gain: 0.5}
            """.write(toFile: preset, atomically: true, encoding: .utf8)
        let session = folder.appendingPathComponent("stems.csv").path
        try "time,bpm\n0,72\n4.3,97\n7.1,61\n".write(toFile: session, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("mix.wav").path, stems = folder.appendingPathComponent("stems").path
        let events = folder.appendingPathComponent("stems.jsonl").path
        let result = try pulsejack(["render", "--preset", preset, "--session", session, "--out", out, "--stems", stems,
                                    "--events-out", events, "--duration", "10", "--period", "100"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let master = try WavFile(path: out)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: stems + "/master.wav")), try Data(contentsOf: URL(fileURLWithPath: out)))
        let names = ["low", "eighths", "bars", "thump"]
        let stemFiles = try names.map { try WavFile(path: "\(stems)/\($0).wav") }
        for stem in stemFiles { XCTAssertEqual(stem.frameCount, master.frameCount) }
        XCTAssertEqual(master.frameCount, 480_000)
        var largest: Float = 0
        for channel in 0..<2 {
            for frame in 0..<master.frameCount {
                let sum = stemFiles.reduce(Float(0)) { $0 + $1.channels[channel][frame] }
                largest = max(largest, abs(sum - master.channels[channel][frame]))
            }
        }
        XCTAssertLessThanOrEqual(largest, 1e-6)
        var fired: [String: [Int]] = [:]
        for line in try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            fired[object["voice"] as! String, default: []].append(object["frame"] as! Int)
        }
        // Click stems: an impulse exactly at each of the voice's events, nothing else.
        for (index, name) in names.enumerated() where name != "thump" {
            let loudest = stemFiles[index].channels.map { channel in channel.indices.filter { abs(channel[$0]) > 0.05 } }
            XCTAssertEqual(Array(Set(loudest[0] + loudest[1])).sorted(), fired[name], name)
        }
        XCTAssertGreaterThan(fired["eighths"]?.count ?? 0, 2 * (fired["low"]?.count ?? 0) - 2)
        // The sample's stem starts at its events: silent before the first.
        let thump = stemFiles[3].channels[0]
        let first = try XCTUnwrap(fired["thump"]?.first)
        XCTAssertTrue(thump[..<first].allSatisfy { $0 == 0 })
        XCTAssertGreaterThan(thump[first..<(first + 2000)].map(abs).max() ?? 0, 0.01)
    }

    func testGroupStemsAreTheSumOfTheirVoicesStems() throws {
        let preset = folder.appendingPathComponent("groups.yaml").path
        try """
            voices:
              - {name: low, kind: click, gain: 0.8, pan: -0.5, group: drums}
              - {name: eighths, kind: click, gain: 0.7, subdivide: 2, pan: 0.6, group: drums}
              - {name: bars, kind: click, gain: 0.6, every: 4, group: accents}
              - {name: thump, kind: sample, file: \(presets.path)/sounds/thump.wav, gain: 0.5}
            """.write(toFile: preset, atomically: true, encoding: .utf8)
        let session = folder.appendingPathComponent("groups.csv").path
        try "time,bpm\n0,72\n4.3,97\n".write(toFile: session, atomically: true, encoding: .utf8)
        let perVoice = folder.appendingPathComponent("voices").path, perGroup = folder.appendingPathComponent("groups").path
        let common = ["render", "--preset", preset, "--session", session, "--duration", "8", "--period", "100"]
        let voices = try pulsejack(common + ["--out", folder.appendingPathComponent("v.wav").path, "--stems", perVoice])
        XCTAssertEqual(voices.status, 0, voices.stderr)
        let groups = try pulsejack(common + ["--out", folder.appendingPathComponent("g.wav").path, "--stems", perGroup, "--outputs", "groups"])
        XCTAssertEqual(groups.status, 0, groups.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: perGroup).sorted(), ["accents.wav", "drums.wav", "master.wav"])
        func stem(_ folder: String, _ name: String) throws -> WavFile { try WavFile(path: "\(folder)/\(name).wav") }
        let drums = try stem(perGroup, "drums"), accents = try stem(perGroup, "accents"), master = try stem(perGroup, "master")
        let low = try stem(perVoice, "low"), eighths = try stem(perVoice, "eighths"), bars = try stem(perVoice, "bars")
        let thump = try stem(perVoice, "thump")
        XCTAssertEqual(master.frameCount, 384_000)
        var largest: Float = 0
        for channel in 0..<2 {
            for frame in 0..<master.frameCount {
                // Each group is its voices (from the per-voice render), and the groups with the
                // ungrouped voice make the master.
                largest = max(largest, abs(drums.channels[channel][frame] - low.channels[channel][frame] - eighths.channels[channel][frame]),
                              abs(accents.channels[channel][frame] - bars.channels[channel][frame]),
                              abs(master.channels[channel][frame] - drums.channels[channel][frame] - accents.channels[channel][frame]
                                  - thump.channels[channel][frame]))
            }
        }
        XCTAssertLessThanOrEqual(largest, 1e-6)
        XCTAssertGreaterThan(drums.channels[0].map(abs).max() ?? 0, 0.5)
        // --outputs belongs to stems, and a render's stems are per voice or per group.
        let alone = try pulsejack(common + ["--out", folder.appendingPathComponent("x.wav").path, "--outputs", "groups"])
        XCTAssertNotEqual(alone.status, 0)
        XCTAssertTrue(alone.stderr.contains("--outputs goes with --stems"), alone.stderr)
        let masterOnly = try pulsejack(common + ["--out", folder.appendingPathComponent("x.wav").path, "--stems", perGroup, "--outputs", "master"])
        XCTAssertTrue(masterOnly.stderr.contains("per voice or per group"), masterOnly.stderr)
    }

    func testVoicesJSONListsAbsoluteSoundPaths() throws {
        let result = try pulsejack(["voices", "--preset", presets.appendingPathComponent("default").path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(list.map { $0["name"] as! String }, ["heart", "tick", "bell"])
        for voice in list {
            XCTAssertEqual(voice["kind"] as? String, "sample")
            let files = voice["files"] as! [String]
            XCTAssertEqual(files.count, 1)
            XCTAssertTrue(files[0].hasPrefix("/") && FileManager.default.fileExists(atPath: files[0]), files[0])
            XCTAssertNotNil(voice["gain"] as? Double)
            XCTAssertNotNil(voice["rate"] as? [String: Any])
        }
    }

    func testPulsonifyVoicesListEverySwitchWithItsSounds() throws {
        let result = try pulsejack(["voices", "--preset", presets.appendingPathComponent("pulsonify").path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        let byName = Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as! String, $0) })
        for name in ["arpeggio", "maraca", "drips", "bells", "snap", "brush", "paradiddle", "shuffle", "cramp_roll", "flap",
                     "uke", "singing"] {
            XCTAssertNotNil(byName[name], name)
        }
        XCTAssertEqual((byName["paradiddle"]?["files"] as? [String])?.count, 3, "toe, heel and scuff")
        XCTAssertEqual((byName["arpeggio"]?["files"] as? [String])?.count, 0, "synthesized")
        XCTAssertTrue((byName["singing"]?["files"] as? [String])?.first?.hasSuffix("sounds/singing.wav") == true)
        for voice in list {
            for file in voice["files"] as! [String] { XCTAssertTrue(FileManager.default.fileExists(atPath: file), file) }
        }
    }

    func testRenderWithAnInputFeedsTheDenseConvolution() throws {
        // A dense convolution whose clip is a single impulse at frame 100: the output is the input
        // delayed by 100 frames, on both channels.
        let clip = folder.appendingPathComponent("impulse.wav").path
        var impulse = [Float](repeating: 0, count: 200)
        impulse[100] = 1
        try writeWav(clip, impulse)
        let input = folder.appendingPathComponent("input.wav").path
        let tone = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        try writeWav(input, tone)
        let presetFolder = folder.appendingPathComponent("dense")
        try FileManager.default.createDirectory(at: presetFolder, withIntermediateDirectories: true)
        try "voices:\n  - {name: room, kind: convolution, file: \(clip), input: true}\n"
            .write(to: presetFolder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("dense.wav").path
        let result = try pulsejack(["render", "--preset", presetFolder.path, "--session",
                                    presets.appendingPathComponent("sessions/73bpm.csv").path,
                                    "--input", input, "--out", out, "--duration", "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rendered = try WavFile(path: out)
        for frame in stride(from: 100, to: 48_000, by: 997) {
            XCTAssertEqual(rendered.channels[0][frame], tone[frame - 100], accuracy: 1e-4)
            XCTAssertEqual(rendered.channels[1][frame], tone[frame - 100], accuracy: 1e-4)
        }
        XCTAssertEqual(rendered.channels[0][50], 0, accuracy: 1e-6, "nothing before the impulse's delay")
    }

    /// A mono 16-bit WAV, written by sox from raw floats (an independent writer).
    private func writeWav(_ path: String, _ samples: [Float]) throws {
        let raw = path + ".f32"
        _ = FileManager.default.createFile(atPath: raw, contents: samples.withUnsafeBufferPointer { Data(buffer: $0) })
        let sox = try Subprocess.run(Subprocess.which("sox") ?? "/usr/bin/sox",
                                     ["-t", "raw", "-r", "48000", "-e", "floating-point", "-b", "32", "-c", "1", raw, "-b", "32", "-e", "floating-point", path])
        XCTAssertEqual(sox.status, 0, sox.stderr)
    }

    func testAPoseTrajectoryRendersRegionHitsOncePerEntryAtTheCrossingFrame() throws {
        let preset = folder.appendingPathComponent("drums")
        try FileManager.default.createDirectory(at: preset, withIntermediateDirectories: true)
        try """
        voices:
          - {name: drum1, kind: click, on_beat: false}
          - {name: snare2, kind: click, on_beat: false, velocity: 0.5}
        regions: {right-down: drum1, left-left: snare2}
        """.write(to: preset.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        // 50 poses a second. The right hand drops through 0.1 between t = 0.98 and 1.0 (y 0.2 → 0.0:
        // crossing at t = 0.99) then jitters around 0.1 without rising past 0.2; later the left
        // hand reaches out past −0.4 once.
        var rows = ["time,lx,ly,rx,ry"]
        for index in 0..<150 {
            let t = Double(index) / 50
            var ry = 0.5
            if t >= 0.98 { ry = t < 1.0 ? 0.2 : (index % 2 == 0 ? 0.05 : 0.15) }
            let lx = t >= 2.0 ? -0.6 : -0.1
            rows.append(String(format: "%.2f,%.2f,0.5,0.2,%.2f", t, lx, ry))
        }
        let session = folder.appendingPathComponent("pose.csv")
        try rows.joined(separator: "\n").write(to: session, atomically: true, encoding: .utf8)
        let events = folder.appendingPathComponent("pose.jsonl").path
        let result = try pulsejack(["render", "--preset", preset.path, "--session", session.path,
                                    "--out", folder.appendingPathComponent("pose.wav").path, "--events-out", events])
        XCTAssertEqual(result.status, 0, result.stderr)
        let fired = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").map { line -> String in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return "\(object["voice"]!)@\(object["frame"]!)"
        }
        // right-down: 0.2 → 0.05 between frames 47 040 and 48 000 crosses 0.1 at 2/3: frame 47 680.
        // left-left: −0.1 → −0.6 between 1.98 s and 2.0 s crosses −0.4 at 3/5: frame 95 616.
        XCTAssertEqual(fired, ["drum1@47680", "snare2@95616"])

        // The preset's own thresholds and scale: positions doubled, right-down entered below 0.12
        // and left above 0.31.
        try """
        voices:
          - {name: drum1, kind: click, on_beat: false}
        regions: {right-down: drum1}
        pose: {scale: 2, down: [0.12, 0.31]}
        """.write(to: preset.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let scaled = try pulsejack(["render", "--preset", preset.path, "--session", session.path,
                                    "--out", folder.appendingPathComponent("pose2.wav").path, "--events-out", events])
        XCTAssertEqual(scaled.status, 0, scaled.stderr)
        let scaledHits = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(scaledHits.count, 1, "jitter between 0.1 and 0.3 (scaled) never leaves past the exit 0.31: one hit")
        try "voices: [{name: d, kind: click}]\npose: {up: [0.7, 0.8]}\n".write(to: preset.appendingPathComponent("preset.yaml"),
                                                                               atomically: true, encoding: .utf8)
        let wrong = try pulsejack(["voices", "--preset", preset.path])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("pose.up: [0.7, 0.8] is not [enter, exit] with enter beyond exit"), wrong.stderr)
    }

    func testTambourModesRecordAPatternAndPlayItOnTheBeatGrid() throws {
        let preset = folder.appendingPathComponent("tambour")
        try FileManager.default.createDirectory(at: preset, withIntermediateDirectories: true)
        try """
        bpm: 120
        voices:
          - {name: drum1, kind: click, on_beat: false}
          - {name: drum2, kind: click, on_beat: false}
          - {name: snap, kind: click, on_beat: false}
          - {name: rec, kind: click, on_beat: false}
          - {name: play, kind: click, on_beat: false}
          - {name: free, kind: click, on_beat: false}
        regions: {right-down: drum1, left-down: drum2, left-up: snap, right-up: mode}
        skip_region: left-up
        mode_sounds: {recording: rec, playing: play, freestyle: free}
        """.write(to: preset.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        // Gestures (from a rest pose), each 0.1 s long, sampled 50 times a second.
        let gestures: [(start: Double, hand: String, y: Double)] = [
            (0.4, "right", 0.9),   // right-up: freestyle → recording
            (1.0, "right", 0.0),   // right-down: drum1, recorded
            (1.5, "left", 0.9),    // left-up: a skipped beat, its snap heard
            (2.0, "left", 0.0),    // left-down: drum2, recorded
            (2.3, "right", 0.9),   // right-up: recording → playing
            (3.2, "left", 0.9),    // left-up while playing: silent, nothing recorded
            (5.2, "right", 0.9),   // right-up: playing → freestyle
            (5.6, "right", 0.0),   // right-down in freestyle: plays, not recorded
        ]
        var rows = ["time,lx,ly,rx,ry"]
        for index in 0..<300 {
            let t = Double(index) / 50
            var ly = 0.5, ry = 0.5
            for gesture in gestures where t >= gesture.start - 1e-9 && t < gesture.start + 0.1 - 1e-9 {
                if gesture.hand == "left" { ly = gesture.y } else { ry = gesture.y }
            }
            rows.append(String(format: "%.2f,-0.1,%.2f,0.1,%.2f", t, ly, ry))
        }
        let session = folder.appendingPathComponent("tambour.csv")
        try rows.joined(separator: "\n").write(to: session, atomically: true, encoding: .utf8)
        let events = folder.appendingPathComponent("tambour.jsonl").path
        let result = try pulsejack(["render", "--preset", preset.path, "--session", session.path, "--duration", "6",
                                    "--out", folder.appendingPathComponent("tambour.wav").path, "--events-out", events])
        XCTAssertEqual(result.status, 0, result.stderr)
        let fired = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").map { line -> (String, Int) in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return (object["voice"] as! String, object["frame"] as! Int)
        }
        XCTAssertEqual(fired.map(\.0), ["rec", "drum1", "snap", "drum2", "play", "drum1", "drum2", "drum1", "drum2", "free", "drum1"])
        // Playing: the pattern drum1, (skip), drum2 on the 120 BPM grid (a beat every 24 000 frames).
        XCTAssertEqual(fired[5...8].map(\.1), [120_000, 168_000, 192_000, 240_000])
    }

    func testLibraryScanReadsTagsFromCommentMetadataWrittenBySox() throws {
        let library = folder.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let sox = try XCTUnwrap(Subprocess.which("sox"))
        for (name, comment) in [("happy.flac", "Comment=#happy #Dance bpm=120"), ("sad.ogg", "Comment=#sad"), ("plain.wav", nil)] {
            var arguments = ["-n", "-r", "44100", "-c", "2"]
            if let comment { arguments += ["--comment", comment] }
            arguments += [library.appendingPathComponent(name).path, "synth", "1.5", "sine", "440"]
            let made = try Subprocess.run(sox, arguments)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        try "not audio".write(to: library.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let result = try pulsejack(["library", "--scan", library.path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let tracks = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        let byName = Dictionary(uniqueKeysWithValues: tracks.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0) })
        XCTAssertEqual(Set(byName.keys), ["happy.flac", "sad.ogg", "plain.wav"], "the text file is skipped")
        XCTAssertEqual(byName["happy.flac"]?["tags"] as? [String], ["happy", "dance"])
        XCTAssertEqual(byName["happy.flac"]?["bpm"] as? Double, 120)
        XCTAssertEqual(byName["sad.ogg"]?["tags"] as? [String], ["sad"])
        XCTAssertEqual(byName["plain.wav"]?["tags"] as? [String], [], "no tags: an empty set, not an error")
        XCTAssertEqual(byName["plain.wav"]?["seconds"] as? Double ?? 0, 1.5, accuracy: 0.01)
    }

    func testStudyWritesTheHeartRateSamplesAsValidHealthKitJSON() throws {
        let clips = folder.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        let sox = try XCTUnwrap(Subprocess.which("sox"))
        for name in ["one.wav", "two.wav"] {
            _ = try Subprocess.run(sox, ["-n", "-r", "48000", "-c", "1", clips.appendingPathComponent(name).path, "synth", "0.5", "sine", "440"])
        }
        // 60 BPM at rest, rising during the clip; samples every 2 s for 50 s (the study keeps 40).
        var rows = ["time,bpm"]
        let input: [(time: Double, bpm: Double)] = stride(from: 0, to: 50, by: 2).map { (t: Int) -> (time: Double, bpm: Double) in
            (Double(t), t < 10 ? 60 : 60 + Double(t - 10))
        }
        rows += input.map { "\($0.time),\($0.bpm)" }
        let session = folder.appendingPathComponent("heart.csv")
        try rows.joined(separator: "\n").write(to: session, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("study")
        let result = try pulsejack(["study", "--clips", clips.path, "--duration", "30", "--baseline", "10", "--out", out.path,
                                    "--replay", session.path, "--seed", "7"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let runs = try FileManager.default.contentsOfDirectory(atPath: out.path)
        XCTAssertEqual(runs.count, 1)
        let run = out.appendingPathComponent(runs[0])
        let clip = try String(contentsOf: run.appendingPathComponent("clip.txt"), encoding: .utf8).trimmingCharacters(in: .newlines)
        XCTAssertTrue(["one.wav", "two.wav"].contains(clip))
        // The JSON is valid HealthKit-style and its samples equal the input inside the window.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("heart-rate.json"))) as! [String: Any]
        let items = json["items"] as! [[String: Any]]
        let kept = input.filter { $0.time < 40 }
        XCTAssertEqual(items.map { $0["value"] as! Double }, kept.map(\.bpm))
        XCTAssertTrue(items.allSatisfy { $0["unit"] as? String == "count/min" && $0["startDate"] is String && $0["endDate"] is String })
        let reread = try HeartSession.load(path: run.appendingPathComponent("heart-rate.json").path)
        XCTAssertEqual(reread.entries.map(\.time), kept.map(\.time), "dates keep the samples' times")
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("summary.json"))) as! [String: Any]
        let before = summary["before"] as! [String: Any], during = summary["during"] as! [String: Any]
        XCTAssertEqual(before["mean"] as? Double, 60)
        XCTAssertEqual(during["min"] as? Double, 60)
        XCTAssertEqual(during["max"] as? Double, 88)
        XCTAssertEqual(during["mean"] as? Double ?? 0, 74, accuracy: 1e-9)
    }

    func testDemoRendersTheShippedSession() throws {
        let result = try pulsejack(["demo", "--out", "demo.wav"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let wav = try WavFile(path: folder.appendingPathComponent("demo.wav").path)
        XCTAssertEqual(wav.channels.count, 2)
        XCTAssertEqual(wav.frameCount, 62 * 48_000, "the 60 s session plus a 2 s tail")
        XCTAssertGreaterThan(wav.channels[0].map(abs).max()!, 0.2)
        XCTAssertTrue(result.stdout.contains(folder.appendingPathComponent("demo.wav").path) ||
                      result.stdout.contains("demo.wav"), result.stdout)
    }

    func testBadInputGetsOneClearErrorAndANonZeroExit() throws {
        let brokenPreset = folder.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: brokenPreset, withIntermediateDirectories: true)
        try "voices:\n  - name: a\n    kind: click\n    gain: [\n".write(to: brokenPreset.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let badSession = folder.appendingPathComponent("bad.csv")
        try "time,bpm\n0,72\n1,seventy\n".write(to: badSession, atomically: true, encoding: .utf8)
        let goodSession = presets.appendingPathComponent("sessions/73bpm.csv").path
        let out = folder.appendingPathComponent("x.wav").path
        let cases: [([String], String)] = [
            (["render", "--preset", "/no/such/preset", "--session", goodSession, "--out", out], "/no/such/preset: no such preset"),
            (["render", "--preset", brokenPreset.path, "--session", goodSession, "--out", out], "preset.yaml:5: not valid YAML"),
            (["render", "--session", badSession.path, "--out", out], "bad.csv:3: bpm 'seventy' is not a number"),
            (["render", "--session", "/no/such/session.csv", "--out", out], "/no/such/session.csv: cannot read the session file"),
            (["voices", "--preset", brokenPreset.path], "preset.yaml:5"),
        ]
        for (arguments, expected) in cases {
            let result = try pulsejack(arguments)
            XCTAssertEqual(result.status, 1, "\(arguments)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "one line: \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("pulsejack: error: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(expected), "'\(result.stderr)' lacks '\(expected)'")
        }
    }

    func testImpossibleLiveOptionsAreRefusedBeforeAnythingStarts() throws {
        // The longest client name each libjack takes: jack_client_name_size() − 2 (the NUL, and
        // one byte jackd2 1.9.21 refuses): 63 on jackd2, 255 on PipeWire (its JACK_CLIENT_NAME_SIZE 256).
        let longest = TestServer.isPipeWire ? 255 : 63
        let cases: [([String], String)] = [
            (["run", "--beat-latency", "2"], "--beat-latency 2.0 is outside 0…0.5 s"),
            (["run", "--follow-transport", "--timebase"], "--follow-transport and --timebase exclude each other"),
            (["run", "--connect-port", "out_L"], "--connect-port out_L is not OURS=THEIRS"),
            (["render", "--session", "x.csv", "--out", "x.wav", "--plot-revolution", "0"], "--plot-revolution 0.0 is outside"),
            (["status", "--osc-port", "\(OSCEncoder.freePort())"], "no pulsejack answered"),
            (["run", "--name", "a:b"], "contains ':'"),
            (["run", "--name", ""], "the JACK client name is empty"),
            (["run", "--name", String(repeating: "n", count: longest + 1)], "\(longest + 1) bytes long; JACK allows at most \(longest)"),
            (["run", "--name", String(repeating: "n", count: 300)], "300 bytes long; JACK allows at most \(longest)"),
            (["run", "--osc-allow", "192.168.1.0/40"], "--osc-allow 192.168.1.0/40 is not an address or CIDR range"),
            (["run", "--record-buffer", "0"], "--record-buffer 0.0 is outside 0.05…600 s"),
            (["run", "--heart", "bluetooth"], "--heart: 'bluetooth' is not a sensor: expected ble[:ADDRESS|NAME] or polar-ecg[:ADDRESS|NAME]"),
            (["run", "--heart", "muse"], "--heart: 'muse' is not a sensor: expected ble[:ADDRESS|NAME] or polar-ecg"),
            (["run", "--eeg", "ble"], "--eeg: 'ble' is not a sensor: expected muse[:ADDRESS|NAME]"),
            (["run", "--heart", "polar-ecg", "--ecg-delay", "0.1"], "--ecg-delay 0.1 is outside 0.3…3 s"),
        ]
        for (arguments, expected) in cases {
            let result = try pulsejack(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(expected), "'\(result.stderr)' lacks '\(expected)'")
        }
    }

    func testImpossibleRatesInASessionAreRejectedCountedAndTheTempoKept() throws {
        let session = folder.appendingPathComponent("wild.csv")
        try "time,bpm\n0,60\n1.5,0\n2,400\n2.5,nan\n".write(to: session, atomically: true, encoding: .utf8)
        let events = folder.appendingPathComponent("wild.jsonl").path
        let result = try pulsejack(["render", "--preset", presets.appendingPathComponent("click").path, "--session", session.path,
                                    "--out", folder.appendingPathComponent("wild.wav").path, "--events-out", events,
                                    "--duration", "4"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("wild.csv:3: bpm 0 rejected"), result.stderr)
        XCTAssertTrue(result.stdout.contains("3 tempo updates rejected"), result.stdout)
        let frames = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").count
        XCTAssertEqual(frames, 4, "60 BPM kept: beats at 0, 1, 2, 3 s")
    }

    /// A client named like its server takes the server's socket: refused, and the server still
    /// serves other clients afterwards.
    func testAClientNamedLikeItsServerIsRefused() throws {
        guard let server = TestServer.name else { throw XCTSkip(TestServer.missing) }
        if TestServer.isPipeWire {
            // PipeWire has no server socket a client could take: "default" is a name like any other.
            let result = try Subprocess.run(Subprocess.pulsejack, ["run", "--name", "default", "--no-osc"], timeout: 3)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stdout.contains("on PipeWire's JACK (PipeWire \(TestServer.pipeWireVersion!)) as 'default'"), result.stdout)
            return
        }
        let result = try Subprocess.run(Subprocess.pulsejack, ["run", "--name", server, "--no-osc"],
                                        environment: ["JACK_DEFAULT_SERVER": server], timeout: 5)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("is the server's own name"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        let lsp = try Subprocess.run("/usr/bin/jack_lsp", [], environment: ["JACK_DEFAULT_SERVER": server, "JACK_NO_START_SERVER": "1"])
        XCTAssertEqual(lsp.status, 0, "a second client still connects: \(lsp.stderr)")
    }

    /// Hostile sessions: a day-long gap or a far-future time is one error naming the line, and
    /// ten thousand NaN rows print a few lines, not ten thousand.
    func testHostileSessionsFailClearlyOrWarnBriefly() throws {
        let click = presets.appendingPathComponent("click").path, out = folder.appendingPathComponent("h.wav").path
        for (name, rows, line) in [("far.csv", "time,bpm\n0,70\n200000000000000,72\n", 3), ("long.csv", "time,bpm\n0,70\n1e12,72\n", 3)] {
            let session = folder.appendingPathComponent(name).path
            try rows.write(toFile: session, atomically: true, encoding: .utf8)
            for command in [["render", "--session", session, "--out", out], ["run", "--replay", session, "--no-osc", "--name", "pj-hostile"]] {
                let server = TestServer.name.map { ["JACK_DEFAULT_SERVER": $0] } ?? [:]
                let result = try Subprocess.run(Subprocess.pulsejack, command + ["--preset", click], environment: server, in: folder, timeout: 10)
                XCTAssertEqual(result.status, 1, "\(command): \(result.stderr)")
                XCTAssertEqual(result.stderr, "pulsejack: error: \(session):\(line): time \(rows.split(separator: "\n")[2].split(separator: ",")[0]) s is past the 24 h (86400 s) a session may last\n")
            }
        }
        let nans = folder.appendingPathComponent("nans.csv").path
        try ("time,bpm\n0,70\n" + (1...10_000).map { "\(Double($0) / 1000),nan\n" }.joined()).write(toFile: nans, atomically: true, encoding: .utf8)
        let result = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", click, "--session", nans, "--out", out], in: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThanOrEqual(result.stderr.split(separator: "\n").count, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains("9997 more entries rejected"), result.stderr)
        XCTAssertTrue(result.stdout.contains("10000 tempo updates rejected"), result.stdout)
    }

    /// Soloing a voice the preset mutes plays it, and says so; a solo that fires nothing says why.
    func testSoloMeansHeard() throws {
        let out = folder.appendingPathComponent("solo.wav").path
        let demo = presets.appendingPathComponent("default/demo-session.csv").path
        let snap = try pulsejack(["render", "--preset", presets.appendingPathComponent("pulsonify").path, "--solo", "snap",
                                  "--session", demo, "--out", out, "--duration", "10"])
        XCTAssertEqual(snap.status, 0, snap.stderr)
        XCTAssertEqual(snap.stderr, "pulsejack: --solo snap: the preset mutes it; playing it anyway\n")
        XCTAssertFalse(snap.stdout.contains(" 0 voices fired"), snap.stdout)
        XCTAssertGreaterThan(try WavFile(path: out).channels[0].map(abs).max() ?? 0, 0.05, "snap is heard")
        let silent = try pulsejack(["render", "--preset", presets.appendingPathComponent("tambour").path, "--solo", "snap",
                                    "--session", demo, "--out", out, "--duration", "10"])
        XCTAssertEqual(silent.status, 0, silent.stderr)
        XCTAssertTrue(silent.stdout.contains("--solo snap fired nothing: it does not play on the beat (on_beat: false)"), silent.stdout)
    }
}

private extension XMLElement {
    /// An attribute's value by its local name (in the SVG namespace `attribute(forName:)` finds none).
    func value(of name: String) -> String? {
        attributes?.first { $0.localName == name || $0.name == name }?.stringValue
    }
}
