import Foundation
import Sensors
import TestSupport
import XCTest

/// The Heart Rate Measurement decoder against an independent encoder: Bumble's
/// `HeartRateService.HeartRateMeasurement` (PyPI `bumble`, in the venv `make` creates), on every
/// shape a strap sends — 8- and 16-bit rates, contact unsupported, detected or lost, energy, 0–4
/// RR intervals and the RR flag with none — and garbage refused with its reason.
final class HeartRateMeasurementTests: XCTestCase {
    /// The venv's Python with the BLE peers' packages (`make ble-peers`).
    static var python: String { Subprocess.repository.appendingPathComponent(".build/venv/bin/python").path }

    private struct Case: Decodable {
        var bpm: Int
        var contact: Bool?
        var energy: Int?
        var rr: [UInt16]
        var hex: String
        var bytes: [UInt8] {
            stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
        }
    }

    func testEveryShapeBumbleEncodesDecodesToWhatItWasGiven() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            return XCTFail("no \(Self.python): `make ble-peers` makes the BLE peers' venv (make test does)")
        }
        let encoded = try Subprocess.run(Self.python, [Subprocess.repository.appendingPathComponent("scripts/ble/encode-heart-rate.py").path],
                                         timeout: 60)
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        let cases = try encoded.stdout.split(separator: "\n").map { try JSONDecoder().decode(Case.self, from: Data($0.utf8)) }
        XCTAssertEqual(cases.count, 12)
        XCTAssertTrue(cases.contains { $0.bytes[0] & 1 == 1 }, "a 16-bit heart rate among them")
        for reference in cases {
            let decoded = try HeartRateMeasurement(reference.bytes)
            XCTAssertEqual(decoded.bpm, reference.bpm, reference.hex)
            XCTAssertEqual(decoded.contact, reference.contact.map { $0 ? .detected : .lost } ?? .unsupported, reference.hex)
            XCTAssertEqual(decoded.energyExpended, reference.energy, reference.hex)
            XCTAssertEqual(decoded.rrIntervals, reference.rr, reference.hex)
            XCTAssertEqual(decoded.rrSeconds, reference.rr.map { Double($0) / 1024 }, reference.hex)
        }
    }

    func testGarbageIsRefusedWithItsReason() {
        let garbage: [([UInt8], String)] = [
            ([], "empty"),
            ([0x00], "has no heart rate"),
            ([0x01, 0x48], "ends inside its 16-bit heart rate"),
            ([0x08, 72, 0x10], "ends inside its energy expended"),
            ([0x10, 72, 0x00, 0x04, 0x01], "3 bytes, not whole 16-bit values"),
            ([0x00, 72, 0x05], "1 bytes its flags do not account for"),
        ]
        for (bytes, reason) in garbage {
            XCTAssertThrowsError(try HeartRateMeasurement(bytes), "\(bytes)") { error in
                XCTAssertTrue("\(error)".contains(reason), "\(bytes): \(error)")
            }
        }
    }
}
