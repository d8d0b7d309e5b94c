import Foundation
import Presets
import Realtime
import Renders
import TestSupport
import XCTest

/// The hosted plugins hear the heart's time offline (`time:Position`), read by real plugins:
/// lv2's `eg-metro` ticks on the grid's beats across tempo changes, to the frame its own
/// integer frame count allows, whatever the period and in a process of its own too; ZamDelay
/// in its tempo-sync mode delays a click by exactly one beat at the heart's tempo.
final class PluginTimeRenderTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder("plugin-time-render") }
    override func tearDown() { folder?.remove() }

    /// 120, then 96 from 5.3 s and 150 from 10.7 s (mid-beat): every frames-per-beat whole, so
    /// eg-metro's own frame counting (it truncates a beat's fraction when told a position)
    /// keeps each tick within a frame of the beat.
    static let tempos: [(seconds: Double, bpm: Double)] = [(0, 120), (5.3, 96), (10.7, 150)]

    func testEgMetroTicksOnTheGridsBeatsAcrossTempoChangesWhateverThePeriodAndIsolated() throws {
        let preset = try write("voices:\n  - {name: beat, kind: click, gain: 0.5}\n"
                               + "  - {name: metro, kind: lv2, plugin: 'http://lv2plug.in/plugins/eg-metro', on_beat: false}\n")
        let messages = Self.tempos.map { ControlMessage(frame: Int64($0.seconds * 48_000), .tempo(bpm: $0.bpm)) }
        var stems: [[Float]] = []
        for (period, isolated) in [(256, false), (1000, false), (256, true)] {
            var beats: [Int64] = []
            let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: period, messages: messages,
                                               stems: .perVoice, isolatePlugins: isolated)
            let stemFolder = folder.file("stems-\(period)-\(isolated)")
            _ = try renderer.render(frames: 48_000 * 14, to: folder.file("out.wav"), stems: stemFolder) { fired in
                if fired.voice == 0 { beats.append(fired.frame) }
            }
            let metro = try WavFile(path: stemFolder + "/metro.wav").channels[0]
            let ticks = Self.tickStarts(metro)
            XCTAssertEqual(beats.count, 28, "\(beats)")
            XCTAssertEqual(ticks.count, beats.count, "a tick a beat: \(ticks) against \(beats)")
            for (tick, beat) in zip(ticks, beats) {
                XCTAssertLessThanOrEqual(abs(Int64(tick) - beat), 1, "period \(period), isolated \(isolated): tick \(tick), beat \(beat)")
            }
            stems.append(metro)
        }
        XCTAssertEqual(stems[0], stems[1], "the same ticks at another period: each position at its frame")
        XCTAssertEqual(stems[0], stems[2], "the same ticks from the plugin's own process")
    }

    func testZamDelayInSyncModeDelaysAClickByExactlyOneBeat() throws {
        for (bpm, sync, delay) in [(80.0, 1, 36_000), (150.0, 1, 19_200), (150.0, 0, 7_680)] {
            // Wet alone, its low-pass open: the click comes back once, delayed (sync off: the
            // plugin's own 160 ms, so the beat is the position's doing).
            let preset = try write("voices:\n  - name: beat\n    kind: click\n    gain: 0.5\n    inserts:\n"
                                   + "      - {plugin: 'urn:zamaudio:ZamDelay', controls: {sync: \(sync), lpf: 20000, drywet: 1, div: 3}}\n")
            var beats: [Int64] = []
            let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, messages: [ControlMessage(frame: 0, .tempo(bpm: bpm))])
            let out = folder.file("zam-\(bpm)-\(sync).wav")
            _ = try renderer.render(frames: 48_000 * 5, to: out) { beats.append($0.frame) }
            let heard = Self.onsets(try WavFile(path: out).channels[0], threshold: 1e-4)
            let expected = beats.map { Int($0) + delay }.filter { $0 < 48_000 * 5 }
            XCTAssertEqual(heard, expected, "\(bpm) BPM, sync \(sync): beats \(beats)")
        }
    }

    private func write(_ text: String) throws -> LoadedPreset {
        let path = folder.file("preset-\(UUID().uuidString).yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: path)
    }

    /// The first sample above `threshold` after at least 2000 below it.
    static func onsets(_ samples: [Float], threshold: Float) -> [Int] {
        var found: [Int] = [], last = -10_000
        for index in samples.indices where abs(samples[index]) > threshold {
            if index - last > 2000 { found.append(index) }
            last = index
        }
        return found
    }

    /// Where eg-metro's ticks start: its sine starts at phase 0, so a tick's first sample is 0
    /// and its second the first not.
    static func tickStarts(_ samples: [Float]) -> [Int] { onsets(samples, threshold: 0).map { $0 - 1 } }
}
