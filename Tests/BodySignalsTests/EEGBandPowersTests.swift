import Foundation
import Realtime
import BodySignals
import TestSupport
import XCTest

/// The Muse's band powers against scipy's Welch estimate (`scripts/ble/eeg-bands.py`) on windows
/// of known content, and the EEG packet against a packing of our own here.
final class EEGBandPowersTests: XCTestCase {
    private struct Reference: Decodable {
        var dominant: String?
        var samples: [Double]
        var absolute: [String: Double]
        var relative: [String: Double]
    }

    /// Each band's log10 power within 1e-9 of scipy's (the same sums in double precision), its
    /// share within 1e-12; the dominant band (a 40 µV sine beside 4 µV ones) the largest.
    func testBandPowersEqualScipysWelchEstimate() throws {
        let made = try Subprocess.run("/usr/bin/python3", [Subprocess.repository.appendingPathComponent("scripts/ble/eeg-bands.py").path],
                                      timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        let references = try made.stdout.split(separator: "\n").map { try JSONDecoder().decode(Reference.self, from: Data($0.utf8)) }
        XCTAssertEqual(references.count, 6)
        for reference in references {
            let sums = EEGBandPowers.bandSums(reference.samples)
            let total = sums.values.reduce(0, +)
            for band in EEGBand.allCases {
                XCTAssertEqual(log10(sums[band]!), reference.absolute[band.name]!, accuracy: 1e-9, "\(band.name), \(reference.dominant ?? "none") dominant")
                XCTAssertEqual(sums[band]! / total, reference.relative[band.name]!, accuracy: 1e-12)
            }
            if let dominant = reference.dominant {
                XCTAssertEqual(sums.max { $0.value < $1.value }?.key.name, dominant)
            }
        }
    }

    /// Four sensors at 256 Hz in 12-sample packets: the first reading once each has 256 samples,
    /// then ten a second; the reading averages the sensors.
    func testAReadingEveryTenthOfASecondAveragedOverTheSensors() {
        var powers = EEGBandPowers()
        var readings: [EEGBandPowers.Reading] = []
        func sample(_ channel: Int, _ n: Int) -> Double { Double(channel + 1) * 10 * sin(2 * .pi * 10 * Double(n) / 256) }
        for packet in 0..<(512 / 12) {
            for channel in 0..<4 {
                if let reading = powers.add((0..<12).map { sample(channel, packet * 12 + $0) }, channel: channel) { readings.append(reading) }
            }
        }
        // Samples 0…503 in 42 packets: a reading at the first packet's end past 256, 281.6 …
        // 486.4 samples: at 264, 288, 312, 336, 360, 384, 420, 444, 468 and 492.
        XCTAssertEqual(readings.count, 10)
        // The last from each sensor's samples 236…491; the mean of the four log10 powers.
        let single = (0..<4).map { channel -> Double in
            let window = (236..<492).map { sample(channel, $0) }
            return log10(EEGBandPowers.bandSums(window)[.alpha]!)
        }
        XCTAssertEqual(readings.last!.absolute[.alpha]!, single.reduce(0, +) / 4, accuracy: 1e-9)
        XCTAssertGreaterThan(readings.last!.relative[.alpha]!, 0.99)
    }
}
