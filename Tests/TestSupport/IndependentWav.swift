import Foundation

/// Reads a written WAV with readers that share no code with libsndfile: sox (`soxi`) and
/// Python's scipy, and checks the RIFF/RF64 header's sizes against the file's length. A file
/// whose header was never finished (RIFF size 8, data 0) fails here even though libsndfile
/// itself would repair it on reading.
public enum IndependentWav {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    public struct Reading: Equatable {
        /// Frames as sox counts them (`soxi -s`).
        public var soxFrames: Int
        /// Frames and channels as scipy.io.wavfile reads them (memory-mapped).
        public var scipyFrames: Int
        public var scipyChannels: Int
        public var sampleRate: Int

        public init(soxFrames: Int, scipyFrames: Int, scipyChannels: Int, sampleRate: Int) {
            (self.soxFrames, self.scipyFrames, self.scipyChannels, self.sampleRate) = (soxFrames, scipyFrames, scipyChannels, sampleRate)
        }
    }

    public static func read(_ path: String) throws -> Reading {
        try checkHeader(path)
        let soxi = try Subprocess.run("/usr/bin/soxi", ["-s", path])
        guard soxi.status == 0, let soxFrames = Int(soxi.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "soxi -s \(path): \(soxi.stderr)")
        }
        guard let scipy = try scipy(path) else { throw Failure(description: "no scipy reads \(path)") }
        return Reading(soxFrames: soxFrames, scipyFrames: scipy.frames, scipyChannels: scipy.channels, sampleRate: scipy.rate)
    }

    /// scipy.io.wavfile's reading (memory-mapped): the first Python on the PATH, then Debian's.
    /// nil when only a scipy too old for RF64 is there and the file is RF64.
    public static func scipy(_ path: String) throws -> (rate: Int, frames: Int, channels: Int)? {
        let script = """
            import sys, scipy.io.wavfile as w
            rate, data = w.read(sys.argv[1], mmap=True)
            print(rate, data.shape[0], 1 if data.ndim == 1 else data.shape[1])
            """
        var errors = "", tooOld = 0
        let pythons = [Subprocess.which("python3"), "/usr/bin/python3"].compactMap { $0 }
        for python in pythons {
            let result = try Subprocess.run(python, ["-c", script, path])
            let fields = result.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if result.status == 0, fields.count == 3 { return (fields[0], fields[1], fields[2]) }
            errors += "\(python): \(result.stderr.suffix(300))\n"
            if result.stderr.contains("b'RF64' not understood") { tooOld += 1 }
        }
        if tooOld == pythons.count { return nil }
        throw Failure(description: "scipy cannot read \(path): \(errors)")
    }

    /// Frames from the header alone (RF64's ds64 data size, or the data chunk's), stereo float.
    public static func headerFrames(_ path: String) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot open \(path)") }
        defer { try? handle.close() }
        let head = [UInt8](handle.readData(ofLength: 4096))
        func u32(_ at: Int) -> UInt64 { UInt64(head[at]) | UInt64(head[at + 1]) << 8 | UInt64(head[at + 2]) << 16 | UInt64(head[at + 3]) << 24 }
        var offset = 12, ds64: UInt64?
        while offset + 8 <= head.count {
            let chunk = String(decoding: head[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if chunk == "ds64" { ds64 = u32(offset + 16) | u32(offset + 20) << 32 }
            if chunk == "data" { return Int(size == 0xFFFF_FFFF ? (ds64 ?? 0) : size) / 8 }
            offset += 8 + Int(size) + Int(size & 1)
        }
        throw Failure(description: "\(path): no data chunk")
    }

    /// The header's own sizes: RIFF (or RF64's ds64) size = file length − 8, and the data chunk
    /// runs to the end of the file.
    public static func checkHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot open \(path)") }
        defer { try? handle.close() }
        let length = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        let head = [UInt8](handle.readData(ofLength: 4096))
        func u32(_ at: Int) -> UInt64 { UInt64(head[at]) | UInt64(head[at + 1]) << 8 | UInt64(head[at + 2]) << 16 | UInt64(head[at + 3]) << 24 }
        func u64(_ at: Int) -> UInt64 { u32(at) | u32(at + 4) << 32 }
        guard head.count >= 12 else { throw Failure(description: "\(path): \(length) bytes, no header") }
        let id = String(decoding: head[0..<4], as: UTF8.self)
        var riffSize = u32(4)
        var dataSize64: UInt64?
        var offset = 12
        while offset + 8 <= head.count {
            let chunk = String(decoding: head[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if chunk == "ds64" { riffSize = u64(offset + 8); dataSize64 = u64(offset + 16) }
            if chunk == "data" {
                let dataSize = size == 0xFFFF_FFFF ? (dataSize64 ?? 0) : size
                guard UInt64(offset + 8) + dataSize == length else {
                    throw Failure(description: "\(path): data chunk of \(dataSize) bytes at \(offset + 8) but the file has \(length)")
                }
                break
            }
            offset += 8 + Int(size) + Int(size & 1)
        }
        guard id == "RIFF" || id == "RF64", riffSize == length - 8 else {
            throw Failure(description: "\(path): \(id) size \(riffSize), but the file has \(length) bytes")
        }
    }
}
