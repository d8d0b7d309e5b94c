import Foundation

/// A real ECG as Polar's H10 streams it, for the ECG tests and the bench: scipy's recording
/// (MIT-BIH record 208) between `start` and `end` seconds at 130 Hz in µV, and the R-peaks
/// scipy finds in the 360 Hz original (`scripts/ble/ecg-130.py`); and the H10's frames of it.
public struct RecordedECG: Decodable, Sendable {
    public var rate: Double
    public var start: Double
    public var samples: [Double]
    public var peaks: [Double]

    public init(rate: Double, start: Double, samples: [Double], peaks: [Double]) {
        (self.rate, self.start, self.samples, self.peaks) = (rate, start, samples, peaks)
    }

    /// Sample i's time (seconds).
    public var times: [Double] { samples.indices.map { start + Double($0) / rate } }

    /// Made by `scripts/ble/ecg-130.py`; its JSON also written to `path` (a fake H10's `--ecg`).
    /// `original`: the recording's own 360 Hz samples (as an LSL ECG stream carries them).
    public static func load(start: Double = 0, end: Double, into path: String? = nil, original: Bool = false) throws -> RecordedECG {
        let made = try Subprocess.run("/usr/bin/python3", ["-W", "ignore", Subprocess.repository.appendingPathComponent("scripts/ble/ecg-130.py").path,
                                                          "--start", "\(start)", "--end", "\(end)"] + (original ? ["--original"] : []), timeout: 120)
        guard made.status == 0 else { throw PrivateBlueZ.Unavailable(description: "scripts/ble/ecg-130.py failed (python3-scipy?): \(made.stderr)") }
        if let path { try made.stdout.write(toFile: path, atomically: true, encoding: .utf8) }
        return try JSONDecoder().decode(RecordedECG.self, from: Data(made.stdout.utf8))
    }

    /// An H10's notification of `samples` (µV, whole): measurement type 0, the last sample's time
    /// stamp (ns on the sensor's clock, 1/130 s a sample from `epoch`), frame type 0, 3-byte
    /// little-endian samples — built here byte by byte, apart from the decoder it feeds.
    public static func frameBytes(_ samples: ArraySlice<Double>, lastSample: Int, epoch: UInt64 = 820_000_000_000_000_000) -> [UInt8] {
        let timestamp = epoch + UInt64((Double(lastSample) * 1e9 / 130).rounded())
        return [0] + (0..<8).map { UInt8(truncatingIfNeeded: timestamp >> (8 * UInt64($0))) } + [0]
            + samples.flatMap { value -> [UInt8] in
                let bits = UInt32(bitPattern: Int32(value.rounded()))
                return [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF)]
            }
    }
}
