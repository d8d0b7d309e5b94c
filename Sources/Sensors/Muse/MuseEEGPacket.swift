/// One notification of a Muse 2/S EEG characteristic (TP9, AF7, AF8 or TP10): a 16-bit
/// big-endian sequence number, then 12 samples of 12 bits packed big-endian (MSB first), each
/// 0.48828125 µV a step from 2048. 256 samples a second per sensor.
public struct MuseEEGPacket: Equatable, Sendable {
    public static let samplesPerPacket = 12
    public static let byteCount = 2 + samplesPerPacket * 12 / 8
    public static let microvoltsPerStep = 0.48828125

    public var sequence: UInt16
    /// The samples in µV.
    public var microvolts: [Double]

    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(_ bytes: [UInt8]) throws(Malformed) {
        guard bytes.count == Self.byteCount else {
            throw Malformed(description: "a Muse EEG notification of \(bytes.count) bytes (expected \(Self.byteCount): a sequence number and 12 samples)")
        }
        sequence = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        microvolts = (0..<Self.samplesPerPacket).map { index in
            // Two samples in three bytes: the first 12 bits, then the next 12.
            let offset = 2 + index / 2 * 3
            let raw = index % 2 == 0 ? Int(bytes[offset]) << 4 | Int(bytes[offset + 1]) >> 4
                : Int(bytes[offset + 1] & 0x0F) << 8 | Int(bytes[offset + 2])
            return Self.microvoltsPerStep * Double(raw - 2048)
        }
    }
}
