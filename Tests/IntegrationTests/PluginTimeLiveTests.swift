import Foundation
import JackPeers
import TestSupport
import XCTest

/// A live run tells its hosted plugins the heart's time (`time:Position`): lv2's `eg-metro`,
/// which ticks from nothing else, is heard by a JACK client ticking on the beats pulsejack
/// reports on `midi_out` (its click's notes), within one frame, through two tempo changes sent
/// over OSC mid-beat.
final class PluginTimeLiveTests: XCTestCase {
    func testEgMetroTicksOnTheBeatsPulsejackReportsAsTheTempoChanges() throws {
        try Subprocess.requirePulsejack()
        guard let server = TestServer.join() else { throw XCTSkip(TestServer.missing) }
        let folder = try TemporaryFolder("plugin-time-live")
        defer { folder.remove() }
        try ("voices:\n  - {name: beat, kind: click, gain: 0.5}\n"
             + "  - {name: metro, kind: lv2, plugin: 'http://lv2plug.in/plugins/eg-metro', on_beat: false}\n")
            .write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let name = "pj-metro-\(getpid())", port = OSCEncoder.freePort()
        let run = try LiveRun(["run", "--preset", folder.path, "--name", name, "--osc-port", "\(port)", "--bpm", "120", "--outputs", "voices"],
                              server: server)
        var stopped = false
        defer { if !stopped { _ = run.stop() } }
        XCTAssertTrue(try Subprocess.waitForPorts(of: name, server: server, port: "metro_L"), "the voice ports never appeared")
        // Every sample it plays: a tick's first is 0 (its sine starts at phase 0), its second not.
        let ear = try CaptureClient(name: "pj-metro-ear-\(getpid())", threshold: 0)
        let notes = try MidiCapture(name: "pj-metro-notes-\(getpid())")
        try ear.connect(from: "\(name):metro_L")
        try notes.connect(from: "\(name):midi_out")
        // 120, 96 and 150 BPM: whole frames a beat, which eg-metro's own frame count needs.
        usleep(2_300_000)
        _ = OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(96)]), port: port)
        usleep(2_700_000)
        _ = OSCEncoder.send(OSCEncoder.message("/pulse/bpm", [.float(150)]), port: port)
        usleep(2_000_000)
        ear.close()
        notes.close()
        let (status, printed) = run.stop()
        stopped = true
        XCTAssertEqual(status, 0, printed)
        let ticks = PluginTimeLiveTests.ticks(ear.onsetJackFrames), gaps = ear.gaps
        let beats = notes.received.filter(\.isNoteOn).map(\.frame)
        let spacings = Set(zip(beats, beats.dropFirst()).map { $1 - $0 })
        XCTAssertTrue(spacings.isSuperset(of: [24_000, 30_000, 19_200]), "the three tempos: \(spacings)")
        // The beats the ear heard whole: after its first tick, their tick's last sample heard
        // before it closed (a tick it cut has no end to place it by: CI, a tick one frame late
        // and on the sine's zero read two late from its start), not in a cycle it was not run
        // for. One a cycle pulsejack lost or wound back (its stop line counts them) may be off.
        guard let first = ticks.first?.start, let last = ear.onsetJackFrames.last else { return XCTFail("no tick heard: \(printed)") }
        let heard = beats.filter { beat in
            beat > first && beat + Self.tickLength <= last && !gaps.contains { $0.lowerBound - 256 <= beat && beat < $0.upperBound + 256 }
        }
        let disturbed = LiveGrid.disturbedCycles(in: printed)
        let missed = heard.filter { beat in !ticks.contains { abs($0.start - beat) <= 1 || abs($0.fromEnd - beat) <= 1 } }
        // Of the 14 or so beats, most (under PipeWire, 12 of 14 beside the ear's own gaps).
        XCTAssertGreaterThanOrEqual(heard.count, 10, "\(beats)")
        XCTAssertLessThanOrEqual(missed.count, disturbed, "beats without a tick within a frame: \(missed); ticks \(ticks); \(printed)")
    }

    /// eg-metro's tick: 5 ms up and 75 ms down at 48 kHz, its last sample 3839 frames after its first.
    static let tickLength: Int64 = 3839

    /// Each tick eg-metro played, placed two ways: the frame before its first sample heard
    /// (a tick's first sample is 0, its envelope's start), and its last sample less the tick's
    /// 3839 frames (5 ms up, 75 ms down). Its sine runs free, tick or not: once in its 109
    /// samples its zero falls on a tick's second sample, which then looks a frame late from its
    /// start — or on its last, which then looks a frame early from its end; never both.
    static func ticks(_ frames: [Int64]) -> [(start: Int64, fromEnd: Int64)] {
        var ticks: [(start: Int64, fromEnd: Int64)] = [], first: Int64 = -1, last: Int64 = -10_000
        guard let end = frames.last else { return [] }
        for frame in frames + [end + 10_000] {
            if frame - last > 2000 {
                if first >= 0 { ticks.append((first - 1, last - tickLength)) }
                first = frame
            }
            last = frame
        }
        return ticks
    }
}
