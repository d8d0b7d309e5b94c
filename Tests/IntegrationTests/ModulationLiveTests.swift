import OSC
import Inputs
import Foundation
import JackPeers
import TestSupport
import XCTest

/// A body signal shaping the sound live, on jackd2 and PipeWire: timetagged `/signal/level`
/// bundles move an LV2 insert's gain (eg-amp, in dB) at their frames, heard by an independent JACK
/// client; the take re-rendered from its session log plays the same modulated pulses.
final class ModulationLiveTests: XCTestCase {
    /// The signal's levels in turn, and the dB each maps to (from_range [0, 1] onto [−24, 0]).
    private let levels: [Double] = [0.25, 1, 0.5, 0.0, 0.75]
    private func linear(_ level: Double) -> Double { pow(10, (-24 + 24 * level) / 20) }

    func testTimetaggedSignalsMoveAPluginAtTheirFramesAndReRenderExactly() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("modulation-live")
        defer { folder.remove() }
        try """
            voices:
              - name: pad
                kind: click
                on_beat: false
                inserts: [{plugin: http://lv2plug.in/plugins/eg-amp}]
            modulations:
              - from: signal.level
                to: voice.pad.insert.1.gain
                from_range: [0, 1]
                to_range: [-24, 0]
            """.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let client = "pj-modulation-\(getpid())", port = OSCEncoder.freePort()
        let log = folder.file("take.jsonl"), take = folder.file("take.wav")
        let run = try Subprocess.startPulsejack(["run", "--preset", folder.path, "--name", client, "--osc-port", "\(port)",
                                                 "--record-session", log, "--record", take], server: server)
        defer { if run.isRunning { run.interrupt(); run.waitUntilExit() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: client, server: server))
        let ear = try CaptureClient(name: "pj-modulation-ear-\(getpid())", threshold: 0.01)
        try ear.connect(from: "\(client):out_L")
        usleep(300_000)

        // Each level in a bundle with a trigger at the same timetag (the click hears the new gain),
        // and a trigger 1 ms before it (the click hears the old one): 0.5 s apart, from 1 s ahead.
        let base = OSCEncoder.now() + (1 << 32), millisecond: UInt64 = (1 << 32) / 1000
        for (index, level) in levels.enumerated() {
            let at = base + UInt64(index) << 31
            OSCEncoder.send(OSCEncoder.bundle(timetag: at - millisecond, [OSCEncoder.message("/voice/pad/trigger", [.float(1)])]), port: port)
            OSCEncoder.send(OSCEncoder.bundle(timetag: at, [OSCEncoder.message("/signal/level", [.float(Float(level))]),
                                                            OSCEncoder.message("/voice/pad/trigger", [.float(1)])]), port: port)
        }
        usleep(3_800_000)
        ear.close()
        run.interrupt()
        run.waitUntilExit()
        XCTAssertEqual(run.terminationStatus, 0)

        // What the ear heard: each pair, the old gain then the new, 1 ms apart (48 frames at 48 kHz, ±1 for the timetags' rounding).
        let heard = zip(ear.onsetJackFrames, ear.onsetLevels).map { (frame: $0, level: Double($1)) }
        let expected = levels.indices.flatMap { index in [index == 0 ? 1 : linear(levels[index - 1]), linear(levels[index])] }
        XCTAssertEqual(heard.count, expected.count, "\(heard)")
        for (pulse, level) in zip(heard, expected) { XCTAssertEqual(pulse.level, level, accuracy: 1e-5, "at \(pulse.frame)") }
        for pair in stride(from: 0, to: heard.count - 1, by: 2) {
            XCTAssertEqual(Double(heard[pair + 1].frame - heard[pair].frame), 48, accuracy: 1, "the new gain landed at the signal's frame")
        }

        try checkTheTakeReRenders(take, log: log, preset: folder.path, pulses: expected.count, in: folder)
    }

    /// The take re-rendered from its session log: the same `pulses`, spacing and heights.
    private func checkTheTakeReRenders(_ take: String, log: String, preset: String, pulses: Int, in folder: TemporaryFolder) throws {
        let offline = folder.file("offline.wav")
        let render = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", preset, "--session", log, "--out", offline])
        XCTAssertEqual(render.status, 0, render.stderr)
        let live = Self.pulses(try WavFile(path: take).channels[0]), again = Self.pulses(try WavFile(path: offline).channels[0])
        XCTAssertEqual(live.count, pulses)
        XCTAssertEqual(live.map(\.level), again.map(\.level), "the same heights, sample for sample")
        XCTAssertEqual(zip(live.dropFirst(), live).map { $0.frame - $1.frame }, zip(again.dropFirst(), again).map { $0.frame - $1.frame })
        let recorded = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(recorded.contains("\"signals\":[\"level\"]"), "the header names the signals")
        XCTAssertEqual(recorded.components(separatedBy: "\"event\":\"signal\"").count - 1, levels.count)
    }

    /// Every sample louder than 0.01: a click through the plugin is one sample.
    /// A huge value on a smoothed modulation, live: 1e38 refused and counted (implausible), 1e9
    /// clamped to the range before the one-pole; 0.5 after it has the destination at 0.5's mapped
    /// value within the smoothing's time (5 time constants), not a quarter of a minute later.
    /// `/modulation/1/enable` with 5, -1 or NaN is refused, counted, and switches nothing.
    func testAHugeValueNeitherSticksNorSwitchesAModulation() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("modulation-huge")
        defer { folder.remove() }
        try """
            voices:
              - {name: click, kind: click}
            modulations:
              - {from: signal.level, to: voice.click.gain, from_range: [0, 1], to_range: [0.2, 1], smooth: 0.2}
            """.write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let name = "pj-huge-\(getpid())", port = OSCEncoder.freePort()
        let run = try LiveRun(["run", "--preset", folder.path, "--name", name, "--osc-port", "\(port)"], server: server)
        defer { run.stop() }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server))
        func status() -> [String: Double] {
            let answer = try? Subprocess.run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"], timeout: 5)
            let values = (try? JSONSerialization.jsonObject(with: Data((answer?.stdout ?? "").utf8)) as? [String: Any]) ?? [:]
            return values.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        }
        func signal(_ value: Float) { _ = OSCEncoder.send(OSCEncoder.message("/signal/level", [.float(value)]), port: port) }
        signal(1e38)
        signal(1e9)
        usleep(1_500_000)
        var values = status()
        XCTAssertEqual(values["implausible"], 1, "1e38 refused and counted: \(values)")
        XCTAssertEqual(values["modulation_1_source"], 1, "1e9 at the range's top: \(values)")
        XCTAssertEqual(values["modulation_1_value"] ?? 0, 1, accuracy: 1e-3, "\(values)")
        signal(0.5)
        usleep(1_000_000)  // 5 time constants of 0.2 s: e^-5 of the step is left (0.0027 of 0.4)
        values = status()
        XCTAssertEqual(values["modulation_1_value"] ?? 0, 0.6, accuracy: 0.4 * exp(-4.0), "0.5 maps to 0.6: \(values)")
        for refused in [OSCEncoder.Argument.int(5), .int(-1), .float(.nan)] {
            _ = OSCEncoder.send(OSCEncoder.message("/modulation/1/enable", [refused]), port: port)
        }
        usleep(300_000)
        values = status()
        XCTAssertEqual(values["bad_arguments"], 3, "\(values)")
        XCTAssertEqual(values["modulation_1_on"], 1, "\(values)")
    }

    private static func pulses(_ samples: [Float]) -> [(frame: Int, level: Float)] {
        samples.indices.filter { abs(samples[$0]) > 0.01 }.map { ($0, samples[$0]) }
    }
}
