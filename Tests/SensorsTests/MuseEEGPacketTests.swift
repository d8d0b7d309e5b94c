import Sensors
import XCTest

/// The Muse's raw EEG notification, as the headband packs it.
final class MuseEEGPacketTests: XCTestCase {
    /// Twelve 12-bit samples packed MSB first after the sequence number decode to µV.
    func testAnEEGPacketDecodesItsTwelveSamples() throws {
        let raws: [Int] = [0, 4095, 2048, 1, 2047, 2049, 1234, 3210, 17, 4000, 2500, 1500]
        var bits = String(0xBEEF, radix: 2).leftPadded(16)
        for raw in raws { bits += String(raw, radix: 2).leftPadded(12) }
        let bytes = stride(from: 0, to: bits.count, by: 8).map { offset -> UInt8 in
            let start = bits.index(bits.startIndex, offsetBy: offset)
            return UInt8(bits[start..<bits.index(start, offsetBy: 8)], radix: 2)!
        }
        let packet = try MuseEEGPacket(bytes)
        XCTAssertEqual(packet.sequence, 0xBEEF)
        XCTAssertEqual(packet.microvolts, raws.map { 0.48828125 * Double($0 - 2048) })
        XCTAssertThrowsError(try MuseEEGPacket(Array(bytes.dropLast()))) {
            XCTAssertEqual("\($0)", "a Muse EEG notification of 19 bytes (expected 20: a sequence number and 12 samples)")
        }
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
