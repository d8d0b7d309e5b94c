import Foundation

/// A minimal RIFF/WAVE reader written for the tests, independent of libsndfile: 32-bit float
/// or 8/16/24/32-bit integer PCM, any channel count, deinterleaved.
public struct WavFile {
    public var sampleRate: Int
    public var channels: [[Float]]
    public var frameCount: Int { channels.first?.count ?? 0 }

    public enum Failure: Error { case notWav(String) }

    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure.notWav("cannot read \(path)") }
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> UInt32 { UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF",
              String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" else { throw Failure.notWav("not RIFF/WAVE: \(path)") }
        var offset = 12
        var format = 0, channelCount = 0, rate = 0, bits = 0
        var samples: ArraySlice<UInt8>?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(u32(offset + 4))
            let body = offset + 8
            switch id {
            case "fmt ":
                format = Int(u16(body))
                channelCount = Int(u16(body + 2))
                rate = Int(u32(body + 4))
                bits = Int(u16(body + 14))
                if format == 0xFFFE { format = Int(u16(body + 24)) }  // WAVE_FORMAT_EXTENSIBLE sub-format
            case "data":
                samples = bytes[body..<min(body + size, bytes.count)]
            default: break
            }
            offset = body + size + (size & 1)
        }
        guard let samples, channelCount > 0 else { throw Failure.notWav("no fmt or data chunk: \(path)") }
        let width = bits / 8
        let frames = samples.count / (width * channelCount)
        var output = [[Float]](repeating: [Float](repeating: 0, count: frames), count: channelCount)
        let base = samples.startIndex
        for frame in 0..<frames {
            for channel in 0..<channelCount {
                let at = base + (frame * channelCount + channel) * width
                let value: Float
                switch (format, bits) {
                case (3, 32): value = Float(bitPattern: u32(at))
                case (1, 8): value = (Float(bytes[at]) - 128) / 128  // 8-bit WAV is unsigned
                case (1, 16): value = Float(Int16(bitPattern: u16(at))) / 32768
                case (1, 24):
                    let raw = Int32(bitPattern: UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 24)
                    value = Float(raw >> 8) / 8_388_608
                case (1, 32): value = Float(Int32(bitPattern: u32(at))) / 2_147_483_648
                default: throw Failure.notWav("unsupported format \(format)/\(bits) bits: \(path)")
                }
                output[channel][frame] = value
            }
        }
        sampleRate = rate
        channels = output
    }

    /// The first frame of each sound: above `threshold` after at least `quietFrames` frames below it.
    public static func soundStarts(_ samples: [Float], threshold: Float, quietFrames: Int = 100) -> [Int] {
        var starts: [Int] = [], quiet = quietFrames
        for (index, sample) in samples.enumerated() {
            if abs(sample) > threshold {
                if quiet >= quietFrames { starts.append(index) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return starts
    }

    /// Frames whose absolute value exceeds `threshold`, in order.
    public static func onsets(_ samples: [Float], threshold: Float = 0.5) -> [Int] {
        samples.indices.filter { abs(samples[$0]) > threshold }
    }
}
