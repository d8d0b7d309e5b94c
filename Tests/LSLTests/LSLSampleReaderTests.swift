import Foundation
import Inputs
import Realtime
import TestSupport
import XCTest
@testable import LSL

/// What a stream's samples become, offline (no liblsl): a real ECG at an LSL stream's 360 Hz
/// against scipy's R-peaks, an OpenBCI-rate EEG against scipy's Welch estimate, intervals in
/// either unit, markers, and a channel's values as a signal.
final class LSLSampleReaderTests: XCTestCase {
    private let rate = 48_000

    private func reader(_ role: LSLStreamQuery.Role, _ info: LSLStreamInfo, channel: String? = nil,
                        signals: [String] = [], configure: (inout LSLInput.Configuration) -> Void = { _ in }) throws -> LSLSampleReader {
        var query = LSLStreamQuery(role: role, name: info.name)
        query.channel = channel
        var configuration = LSLInput.Configuration()
        (configuration.voices, configuration.regions, configuration.signals) = (["click", "bell"], ["left_drum"], signals)
        configure(&configuration)
        return try LSLSampleReader(query: query, info: info, configuration: configuration, engineRate: rate)
    }

    /// Record 208's own 360 Hz samples in chunks of 10, each read as it would arrive (its last
    /// sample's frame): each beat lies its delay after one of scipy's R-peaks, within 10 ms.
    func testAnECGAt360HzGivesTheRPeaksScipyFinds() throws {
        let ecg = try RecordedECG.load(start: 0, end: 60, original: true)
        XCTAssertEqual(ecg.rate, 360)
        let info = LSLStreamInfo(name: "ECG", type: "ECG", rate: 360, channelCount: 1, isText: false, labels: ["ECG"], units: ["uV"])
        let ecgReader = try reader(.heart, info) { $0.beatDelay = 1.0 }
        let seconds = ecg.times.map { $0 + 10 }  // the stream's first sample at the engine's tenth second
        var beats: [Double] = []
        for first in stride(from: 0, to: ecg.samples.count, by: 10) {
            let last = min(first + 10, ecg.samples.count)
            let made = ecgReader.read(rows: ecg.samples[first..<last].map { [$0] }, texts: [],
                                      frames: seconds[first..<last].map { $0 * Double(rate) }, now: Int64(seconds[last - 1] * Double(rate)) + 2000)
            beats += made.messages.compactMap { message in
                guard case .heartbeat = message.event else { return nil }
                return Double(message.frame) / Double(rate) - 10
            }
        }
        XCTAssertEqual(ecgReader.late, 0)
        let inside = ecg.peaks.filter { $0 > 2.5 && $0 < 59 }
        var matched = 0
        for peak in inside {
            guard let beat = beats.min(by: { abs($0 - 1 - peak) < abs($1 - 1 - peak) }), abs(beat - 1 - peak) < 0.05 else { continue }
            matched += 1
            XCTAssertEqual(beat - 1, peak, accuracy: 0.010, "R-peak at \(peak)")
        }
        XCTAssertGreaterThanOrEqual(Double(matched), 0.95 * Double(inside.count), "\(matched) of \(inside.count)")
    }

    /// 250 Hz (OpenBCI's Cyton), four channels and an AUX one: the band powers equal scipy's
    /// `welch(fs=250, window='hamming', nperseg=250)` summed over each band, log10, averaged.
    func testEEGAtAnyRateMatchesScipysWelch() throws {
        let made = try Subprocess.run("/usr/bin/python3", ["-c", """
        import json, numpy as np
        from scipy import signal
        rate = 250
        rng = np.random.default_rng(250)
        t = np.arange(rate) / rate
        channels = [800 + a * np.sin(2 * np.pi * f * t) + rng.normal(0, 1, rate) for a, f in [(4, 10), (3, 20), (2, 6), (5, 35)]]
        bands = {"delta": (1, 4), "theta": (4, 8), "alpha": (7.5, 13), "beta": (13, 30), "gamma": (30, 44)}
        absolute = {}
        for x in channels:
            f, psd = signal.welch(x, fs=rate, window="hamming", nperseg=rate, detrend="constant", scaling="density")
            for name, (lo, hi) in bands.items():
                absolute[name] = absolute.get(name, 0) + np.log10(psd[(f >= lo) & (f < hi)].sum()) / 4
        print(json.dumps({"channels": [list(map(float, x)) for x in channels], "absolute": absolute}))
        """], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        let reference = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let channels = try XCTUnwrap(reference["channels"] as? [[Double]])
        let absolute = try XCTUnwrap(reference["absolute"] as? [String: Double])
        let info = LSLStreamInfo(name: "obci", type: "EEG", rate: 250, channelCount: 5, isText: false,
                                 labels: ["Fp1", "Fp2", "C3", "C4", "AUX"], units: Array(repeating: "microvolts", count: 5))
        let eeg = try reader(.eeg, info)
        var readings: [[String: Double]] = []
        for index in 0..<250 {
            let row = channels.map { $0[index] } + [9999]  // the AUX channel's garbage is left out
            let made = eeg.read(rows: [row], texts: [], frames: [Double(index) * 192], now: Int64(index) * 192)
            if !made.bands.isEmpty { readings.append(Dictionary(made.bands.map { ($0.0.name, $0.1) }, uniquingKeysWith: { $1 })) }
        }
        XCTAssertEqual(readings.count, 1, "one reading once each channel has a second")
        for (band, value) in absolute { XCTAssertEqual(readings.first?[band] ?? .nan, value, accuracy: 1e-9, band) }
        XCTAssertThrowsError(try reader(.eeg, LSLStreamInfo(name: "slow", type: "EEG", rate: 64, channelCount: 4, isText: false)))
    }

    /// A PPG at muse-lsl's 64 Hz (`type: PPG`, its second channel named): a pulse wave at 75 BPM
    /// whose upstrokes begin at known times; the beats keep their spacing (0.8 s, to a sample), each
    /// the same short time after its upstroke began plus the delay, and each interval goes along.
    func testAPPGStreamsUpstrokesAreBeats() throws {
        let info = LSLStreamInfo(name: "Muse", type: "PPG", rate: 64, channelCount: 3, isText: false, labels: ["PPG1", "PPG2", "PPG3"])
        let ppg = try reader(.heart, info, channel: "PPG2") { $0.beatDelay = 0.5 }
        let onsets = (0..<25).map { 0.5 + 0.8 * Double($0) }
        var beats: [Double] = [], intervals: [Double] = []
        for sample in 0..<(64 * 20) {
            let time = Double(sample) / 64
            // Each pulse rises for 150 ms from its onset and falls over 500 ms.
            let wave = onsets.reduce(0.0) { sum, onset in
                let since = time - onset
                return sum + (since < 0 ? 0 : since < 0.15 ? since / 0.15 : max(0, 1 - (since - 0.15) / 0.5))
            }
            let made = ppg.read(rows: [[0, 1000 + 200 * wave, 0]], texts: [], frames: [time * Double(rate)], now: Int64(time * Double(rate)))
            for message in made.messages {
                switch message.event {
                case .heartbeat: beats.append(Double(message.frame) / Double(rate))
                case .rrIntervals(let chunk): intervals += chunk.seconds
                default: break
                }
            }
        }
        XCTAssertGreaterThanOrEqual(beats.count, 20, "after the detector's 1.5 s of learning")
        for (earlier, later) in zip(beats, beats.dropFirst()) { XCTAssertEqual(later - earlier, 0.8, accuracy: 1.0 / 64 + 1e-9) }
        let afterOnset = beats.map { beat in beat - 0.5 - onsets.last { $0 <= beat - 0.5 }! }
        for delay in afterOnset { XCTAssertEqual(delay, afterOnset[0], accuracy: 1.0 / 64 + 1e-9, "\(afterOnset)") }
        XCTAssertLessThan(afterOnset[0], 0.15, "on the upstroke")
        for interval in intervals { XCTAssertEqual(interval, 0.8, accuracy: 1.0 / 64 + 1.0 / 1024) }
        XCTAssertThrowsError(try reader(.heart, info, channel: "PPG9"), "a channel it does not have")
    }

    /// An RR stream's values in ms (its unit says so, or they are above 10) or in seconds: beats at
    /// each sample's frame plus the delay, and each interval for the session log.
    func testIntervalsInEitherUnitAreBeatsAndIntervals() throws {
        for (unit, values) in [("ms", [800.0, 750]), ("s", [0.8, 0.75]), ("", [800, 750]), ("", [0.8, 0.75])] {
            let info = LSLStreamInfo(name: "hrv", type: "RR", rate: 0, channelCount: 1, isText: false, labels: ["RR"], units: [unit])
            let intervals = try reader(.heart, info) { $0.beatDelay = 0.5 }
            let made = intervals.read(rows: values.map { [$0] }, texts: [], frames: [48_000, 84_000], now: 50_000)
            let beats = made.messages.compactMap { message -> Int64? in
                if case .heartbeat = message.event { return message.frame }
                return nil
            }
            XCTAssertEqual(beats, [72_000, 108_000], "\(unit) \(values)")
            let sent = made.messages.compactMap { message -> [Double]? in
                if case .rrIntervals(let chunk) = message.event { return chunk.seconds }
                return nil
            }.flatMap { $0 }
            XCTAssertEqual(sent.count, 2)
            for (got, want) in zip(sent, [0.8, 0.75]) { XCTAssertEqual(got, want, accuracy: 1.0 / 1024) }
        }
        let late = try reader(.heart, LSLStreamInfo(name: "hrv", type: "RR", rate: 0, channelCount: 1, isText: false)) { $0.beatDelay = 0.5 }
        let made = late.read(rows: [[800]], texts: [], frames: [0], now: 30_000)
        XCTAssertEqual(made.messages.last?.frame, ControlMessage.immediate, "a beat past its delay plays at once")
        XCTAssertEqual(late.late, 1)
        XCTAssertThrowsError(try reader(.heart, LSLStreamInfo(name: "words", type: "Markers", rate: 0, channelCount: 1, isText: true)))
    }

    /// `voice/NAME` and `region/NAME` at their frames plus --lsl-delay; anything else said.
    func testMarkersFireVoicesAndRegionsAtTheirFrames() throws {
        let info = LSLStreamInfo(name: "cues", type: "Markers", rate: 0, channelCount: 1, isText: true)
        let markers = try reader(.markers, info) { $0.markerDelay = 0.1 }
        let made = markers.read(rows: [], texts: ["voice/bell", "region/left_drum", "voice/nobody"], frames: [96_000.4, 100_000, 101_000], now: 97_000)
        XCTAssertEqual(made.messages.count, 2)
        XCTAssertEqual(made.messages.first?.frame, 100_800)
        if case .voiceTrigger(let voice, _) = made.messages.first?.event { XCTAssertEqual(voice, 1) } else { XCTFail("\(made.messages)") }
        if case .regionHit(let region, _) = made.messages.last?.event { XCTAssertEqual(region, 0) } else { XCTFail("\(made.messages)") }
        XCTAssertEqual(made.messages.last?.frame, 104_800)
        XCTAssertTrue(made.problem?.contains("voice/nobody") == true, made.problem ?? "")
    }

    /// A channel by label or number is its signal; values come at most 200 times a second.
    func testAChannelIsItsSignalAtMost200TimesASecond() throws {
        let info = LSLStreamInfo(name: "belt", type: "Respiration", rate: 1000, channelCount: 2, isText: false, labels: ["chest", "belly"])
        let signals = try reader(.signals, info, signals: ["signal.other", "lsl.belt.belly", "lsl.belt.0", "lsl.belt.missing"]) { $0.markerDelay = 0 }
        XCTAssertTrue(signals.problem?.contains("missing") == true)
        let rows = (0..<1000).map { [Double($0), -Double($0)] }
        let made = signals.read(rows: rows, texts: [], frames: (0..<1000).map { Double($0) * 48 + 96_000 }, now: 90_000)
        let sent = made.messages.compactMap { message -> (Int32, Float, Int64)? in
            if case .signal(let index, let value) = message.event { return (index, value, message.frame) }
            return nil
        }
        XCTAssertEqual(sent.filter { $0.0 == 1 }.count, 200)
        XCTAssertEqual(sent.filter { $0.0 == 2 }.count, 200)
        XCTAssertEqual(sent.first { $0.0 == 1 }?.1, -0)
        XCTAssertEqual(sent.filter { $0.0 == 2 }.map(\.1).prefix(3), [0, 5, 10])
        XCTAssertEqual(sent.filter { $0.0 == 2 }.map(\.2).prefix(2), [96_000, 96_240])
        XCTAssertThrowsError(try reader(.signals, info, signals: ["lsl.belt.nothing"]))
    }
}
