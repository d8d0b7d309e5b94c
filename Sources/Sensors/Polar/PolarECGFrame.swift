import BodySignals
import Realtime

/// One notification of Polar's measurement-data characteristic carrying ECG (the H10: 130 Hz):
/// byte 0 the measurement type (0: ECG), bytes 1–8 the sensor's time stamp of the frame's last
/// sample (ns, little-endian), byte 9 the frame type (0: samples of 3 bytes, signed
/// little-endian, µV), then the samples.
public struct PolarECGFrame: Equatable, Sendable {
    public static let sampleRate = 130.0

    /// The sensor's time of the last sample (ns since its own epoch).
    public var timestamp: UInt64
    public var microvolts: [Int32]

    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(_ bytes: [UInt8]) throws(Malformed) {
        guard bytes.count >= 10 else { throw Malformed(description: "a Polar measurement frame of \(bytes.count) bytes (at least 10: type, time stamp, frame type)") }
        guard bytes[0] == 0 else { throw Malformed(description: "a Polar measurement frame of type \(bytes[0]), not ECG (0)") }
        guard bytes[9] == 0 else { throw Malformed(description: "a Polar ECG frame of frame type \(bytes[9]) (only 0, 3-byte samples, is read)") }
        guard (bytes.count - 10) % 3 == 0, bytes.count > 10 else {
            throw Malformed(description: "a Polar ECG frame's samples are \(bytes.count - 10) bytes, not whole 3-byte samples")
        }
        timestamp = (1...8).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << (8 * UInt64($1 - 1)) }
        microvolts = stride(from: 10, to: bytes.count, by: 3).map { offset in
            // 24-bit two's complement, sign-extended through the top byte.
            Int32(bitPattern: UInt32(bytes[offset]) << 8 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 24) >> 8
        }
    }

    /// The sensor's time of each sample (ns): the last at `timestamp`, the others 1/130 s apart before it.
    public var sampleTimes: [Double] {
        let last = Double(timestamp)
        return (0..<microvolts.count).map { last - Double(microvolts.count - 1 - $0) * 1e9 / Self.sampleRate }
    }
}

extension ECGBeatTimeline {
    /// A timeline for a Polar H10's ECG (130 Hz).
    public init(sampleRate: Int, predicts: Bool, delay: Double = ECGBeatTimeline.defaultDelay) {
        self.init(sampleRate: sampleRate, predicts: predicts, delay: delay, signalRate: PolarECGFrame.sampleRate)
    }

    /// The messages for one of Polar's ECG frames that arrived at `frame`.
    public mutating func messages(for ecg: PolarECGFrame, at frame: Int64, performer: UInt8) -> [ControlMessage] {
        messages(timestamp: ecg.timestamp, microvolts: ecg.microvolts.map(Double.init), at: frame, performer: performer)
    }
}
