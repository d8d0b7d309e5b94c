import Foundation
import BodySignals
import TestSupport
import XCTest

/// The ECG R-peak detector against an independent one: three minutes of a real ECG (scipy's
/// MIT-BIH record 208, with premature ventricular beats, couplets among them) resampled to the
/// H10's 130 Hz, and the R-peaks scipy finds in the band-passed 360 Hz original
/// (`scripts/ble/ecg-130.py`, which uses `ecg-rr.py`'s detector).
final class ECGBeatDetectorTests: XCTestCase {
    /// Judged as ANSI/AAMI EC57 judges a QRS detector (a beat matches within 150 ms), past the
    /// first 3 s: at least 99 % of the reference's beats found and 99 % of the found ones real,
    /// and every matched beat within 10 ms of the reference's (at 130 Hz a sample is 7.7 ms).
    func testRPeaksMatchAnIndependentDetectorWithinTenMilliseconds() throws {
        let recording = try RecordedECG.load(end: 180)
        var detector = ECGBeatDetector(sampleRate: 130)  // the recording is a Polar H10's
        var detected: [Double] = []
        for (sample, time) in zip(recording.samples, recording.times) {
            if let beat = detector.add(sample, at: time) { detected.append(beat) }
        }
        XCTAssertEqual(detected, detected.sorted(), "beats come in order")
        let judged = recording.peaks.filter { $0 > 3 && $0 < 179 }
        let found = detected.filter { $0 > 3 && $0 < 179 }
        let matched = judged.compactMap { peak in found.min { abs($0 - peak) < abs($1 - peak) }.map { ($0, peak) } }
            .filter { abs($0.0 - $0.1) < 0.15 }
        XCTAssertGreaterThan(judged.count, 290)
        let sensitivity = Double(matched.count) / Double(judged.count)
        let predictivity = Double(Set(matched.map(\.0)).count) / Double(found.count)
        XCTAssertGreaterThanOrEqual(sensitivity, 0.99, "missed: \(judged.filter { peak in !matched.contains { $0.1 == peak } })")
        XCTAssertGreaterThanOrEqual(predictivity, 0.99, "extra: \(found.filter { beat in !matched.contains { $0.0 == beat } })")
        let errors = matched.map { abs($0.0 - $0.1) }
        XCTAssertEqual(errors.filter { $0 > 0.01 }.count, 0, "over 10 ms: \(matched.filter { abs($0.0 - $0.1) > 0.01 })")
        XCTAssertLessThan(errors.sorted()[errors.count / 2], 0.002, "the median error")
    }

    /// A flat line (no contact, a lead off) is no heart: no beats.
    func testNoBeatsInAFlatLine() {
        var detector = ECGBeatDetector(sampleRate: 130)  // the recording is a Polar H10's
        let beats = (0..<(130 * 20)).filter { detector.add(0, at: Double($0) / 130) != nil }
        XCTAssertEqual(beats, [])
    }
}
