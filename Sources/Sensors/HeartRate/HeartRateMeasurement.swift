import BodySignals
import Realtime

/// One notification of the standard Heart Rate Measurement characteristic (0x2A37, Bluetooth
/// SIG Heart Rate Service 0x180D), as straps and watches send it about once a second: flags; the
/// heart rate in 8 or 16 bits; sensor contact; the energy expended (kJ); the RR intervals since
/// the last notification, each in 1/1024 s. A notification that does not add up is refused with
/// the reason, never half-read.
public struct HeartRateMeasurement: Equatable, Sendable {
    public enum Contact: Equatable, Sendable {
        /// The sensor cannot tell.
        case unsupported
        case detected
        case lost
    }

    public var bpm: Int
    public var contact: Contact
    /// Energy expended since the last reset (kJ), when sent.
    public var energyExpended: Int?
    /// The RR intervals, in 1/1024 s as sent (empty when none were sent, or the flag with none).
    public var rrIntervals: [UInt16]

    /// The RR intervals in seconds.
    public var rrSeconds: [Double] { rrIntervals.map { Double($0) / 1024 } }

    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    enum Flag {
        static let sixteenBitRate: UInt8 = 1 << 0
        static let contactDetected: UInt8 = 1 << 1
        static let contactSupported: UInt8 = 1 << 2
        static let energyPresent: UInt8 = 1 << 3
        static let rrPresent: UInt8 = 1 << 4
    }

    public init(bpm: Int, contact: Contact = .unsupported, energyExpended: Int? = nil, rrIntervals: [UInt16] = []) {
        self.bpm = bpm
        self.contact = contact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// Decodes a notification's bytes.
    public init(_ bytes: [UInt8]) throws(Malformed) {
        guard let flags = bytes.first else { throw Malformed(description: "an empty heart rate measurement") }
        var index = 1
        func uint16(_ what: String) throws(Malformed) -> UInt16 {
            guard index + 2 <= bytes.count else {
                throw Malformed(description: "a heart rate measurement of \(bytes.count) bytes ends inside its \(what)")
            }
            defer { index += 2 }
            return UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
        }
        if flags & Flag.sixteenBitRate != 0 {
            bpm = Int(try uint16("16-bit heart rate"))
        } else {
            guard bytes.count >= 2 else { throw Malformed(description: "a heart rate measurement of 1 byte has no heart rate") }
            bpm = Int(bytes[1])
            index = 2
        }
        contact = flags & Flag.contactSupported == 0 ? .unsupported : flags & Flag.contactDetected != 0 ? .detected : .lost
        energyExpended = flags & Flag.energyPresent != 0 ? Int(try uint16("energy expended")) : nil
        rrIntervals = []
        if flags & Flag.rrPresent != 0 {
            guard (bytes.count - index) % 2 == 0 else {
                throw Malformed(description: "a heart rate measurement's RR intervals are \(bytes.count - index) bytes, not whole 16-bit values")
            }
            while index < bytes.count { rrIntervals.append(try uint16("RR intervals")) }
        } else if index != bytes.count {
            throw Malformed(description: "a heart rate measurement of \(bytes.count) bytes has \(bytes.count - index) bytes its flags do not account for")
        }
    }
}

extension RRBeatTimeline {
    /// The messages for one Heart Rate Measurement notification that arrived at `frame`.
    public mutating func messages(for measurement: HeartRateMeasurement, at frame: Int64, performer: UInt8) -> [ControlMessage] {
        messages(rrIntervals: measurement.rrIntervals, contactLost: measurement.contact == .lost, bpm: measurement.bpm, at: frame, performer: performer)
    }
}
