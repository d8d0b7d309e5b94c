import Renders
import Inputs
import Foundation
import TestSupport
import XCTest
import Realtime
import Presets
import SoundFiles

final class OfflineRenderTests: XCTestCase {
    private var temporary: URL {
        URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pulsejack-offline-\(getpid())-\(name.hashValue)")
    }

    /// presets/click with a constant 73-BPM session: impulses exactly at round(k·60·48000/73),
    /// read back from the WAV by the tests' own reader.
    func testClickPresetAtSeventyThreeBPMPutsImpulsesOnTheContractFrames() throws {
        let preset = try LoadedPreset.load(path: Shipped.presets.appendingPathComponent("click").path)
        let session = try HeartSession.load(path: Shipped.presets.appendingPathComponent("sessions/73bpm.csv").path)
        let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: 256,
                                           messages: SessionSource.messages(for: session, sampleRate: 48_000))
        let out = temporary.path + ".wav"
        let frames: Int64 = 48_000 * 600  // ten minutes
        let summary = try renderer.render(frames: frames, to: out)
        let wav = try WavFile(path: out)
        XCTAssertEqual(wav.sampleRate, 48_000)
        XCTAssertEqual(wav.channels.count, 2)
        XCTAssertEqual(wav.frameCount, Int(frames))
        let expected = (0..<730).map { k in (2 * k * 60 * 48_000 + 73) / (2 * 73) }
        XCTAssertEqual(WavFile.onsets(wav.channels[0]), expected)
        XCTAssertEqual(WavFile.onsets(wav.channels[1]), expected)
        XCTAssertTrue(expected.allSatisfy { wav.channels[0][$0] == 0.89 }, "impulses at the click preset's 0.89 (−1 dBFS of headroom)")
        XCTAssertEqual(summary.beats, 730)
        try? FileManager.default.removeItem(atPath: out)
    }

    func testRenderIsDeterministicAndIndependentOfPeriodSize() throws {
        let preset = try LoadedPreset.load(path: Shipped.presets.appendingPathComponent("default").path)
        let session = try HeartSession.load(path: Shipped.presets.appendingPathComponent("default/demo-session.csv").path)
        var renders: [[Float]] = []
        for period in [256, 64, 1000] {
            let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: period,
                                               messages: SessionSource.messages(for: session, sampleRate: 48_000))
            let out = temporary.path + "-\(period).wav"
            _ = try renderer.render(frames: 48_000 * 20, to: out)
            renders.append(try WavFile(path: out).channels[0])
            try? FileManager.default.removeItem(atPath: out)
        }
        XCTAssertGreaterThan(renders[0].map(abs).max()!, 0.1, "the default preset is audible")
        XCTAssertEqual(renders[0], renders[1])
        XCTAssertEqual(renders[0], renders[2])
    }

    func testSoloRendersOneVoiceAlone() throws {
        let preset = try LoadedPreset.load(path: Shipped.presets.appendingPathComponent("default").path)
        let messages = [ControlMessage(frame: 0, .tempo(bpm: 90))]
        var reports: [String: Int] = [:]
        let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, solo: "bell", messages: messages)
        _ = try renderer.render(frames: 48_000 * 8, to: temporary.path + "-solo.wav") { fired in
            reports[renderer.engine.handle.voiceNames[Int(fired.voice)], default: 0] += 1
        }
        XCTAssertEqual(reports, ["bell": 3], "12 beats at 90 BPM in 8 s; the bell fires on every 4th")
        XCTAssertThrowsError(try OfflineRenderer(preset: preset, sampleRate: 48_000, solo: "tuba", messages: [])) { error in
            XCTAssertTrue("\(error)".contains("no voice named 'tuba'"), "\(error)")
        }
    }

    func testSamplesAreResampledToTheEngineRate() throws {
        // thump.wav is 44.1 kHz; at 48 kHz it must last the same time.
        let path = Shipped.presets.appendingPathComponent("sounds/thump.wav").path
        let original = try WavFile(path: path)
        let buffer = try SampleFile.load(path: path, sampleRate: 48_000)
        XCTAssertEqual(original.sampleRate, 44_100)
        let expected = Double(original.frameCount) * 48_000 / 44_100
        XCTAssertEqual(Double(buffer.frameCount), expected, accuracy: 2)
        // The peak level survives resampling (a real converter, not a truncation).
        let peakIn = original.channels[0].map(abs).max()!
        let peakOut = UnsafeBufferPointer(buffer.left).map(abs).max()!
        XCTAssertEqual(peakOut, peakIn, accuracy: 0.05)
    }
}
