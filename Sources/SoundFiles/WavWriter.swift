import UserFiles
import CSndfile

/// Writes stereo 32-bit float WAV through libsndfile. Offline, or a disk thread: never the
/// process thread.
///
/// The file is RF64 with libsndfile's auto-downgrade: it stays a plain WAV unless it grows past
/// 4 GB, where a RIFF header's 32-bit sizes would wrap. `close()` finishes the header; meanwhile
/// the header is rewritten once a second of audio has reached the file since the last rewrite,
/// so a killed process (a plugin's crash) leaves a readable take of all but its last moments.
///
/// Periods written with `write(left:right:frames:)` are gathered into a 64 Ki-frame buffer and
/// reach the file in one `write()` each (512 KB) instead of one per period; `flush()` and
/// `close()` write what is gathered.
public final class WavWriter {
    private var file: OpaquePointer?
    /// Interleaved frames waiting for the file (made on the first gathered write: the recorder,
    /// which writes interleaved blocks, never needs it).
    private var staged: [Float] = []
    private var stagedFrames = 0
    public static let stagingFrames = 65_536
    public let path: String
    /// Frames accepted (written or gathered).
    public private(set) var framesWritten = 0
    /// Frames in the file since its header was last rewritten, and how many make that due.
    private var framesSinceHeader = 0
    private let headerEvery: Int

    public init(path: String, sampleRate: Int) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 2
        info.format = Int32(SF_FORMAT_RF64 | SF_FORMAT_FLOAT)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw InputError(file: path, "cannot write the WAV file: \(String(cString: sf_strerror(nil)))")
        }
        sf_command(file, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE))
        self.file = file
        self.path = path
        headerEvery = sampleRate
    }

    /// Gathers `frames` frames of two channels; the file gets them in large writes.
    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) throws {
        guard file != nil else { throw InputError(file: path, "write after the file was closed") }
        if staged.isEmpty { staged = [Float](repeating: 0, count: Self.stagingFrames * 2) }
        var done = 0
        while done < frames {
            let count = min(frames - done, Self.stagingFrames - stagedFrames)
            staged.withUnsafeMutableBufferPointer { buffer in
                let out = buffer.baseAddress! + 2 * stagedFrames
                for frame in 0..<count {
                    out[2 * frame] = left[done + frame]
                    out[2 * frame + 1] = right[done + frame]
                }
            }
            stagedFrames += count
            done += count
            if stagedFrames == Self.stagingFrames { try flush() }
        }
        framesWritten += frames
    }

    /// Writes `frames` stereo frames already interleaved (left, right, left …), after what is gathered.
    public func write(interleaved samples: UnsafePointer<Float>, frames: Int) throws {
        try flush()
        try writeToFile(samples, frames: frames)
        framesWritten += frames
    }

    /// Writes the gathered frames to the file.
    public func flush() throws {
        guard stagedFrames > 0 else { return }
        let count = stagedFrames
        stagedFrames = 0
        try staged.withUnsafeBufferPointer { try writeToFile($0.baseAddress!, frames: count) }
        if let file { sf_command(file, Int32(SFC_UPDATE_HEADER_NOW), nil, 0) }
    }

    private func writeToFile(_ samples: UnsafePointer<Float>, frames: Int) throws {
        guard let file else { throw InputError(file: path, "write after the file was closed") }
        let written = sf_writef_float(file, samples, sf_count_t(frames))
        guard written == sf_count_t(frames) else {
            throw InputError(file: path, "write failed: \(String(cString: sf_strerror(file)))")
        }
        framesSinceHeader += frames
        if framesSinceHeader >= headerEvery {
            framesSinceHeader = 0
            sf_command(file, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
        }
    }

    /// Writes what is gathered, finishes the header (sizes, `fact` frame count) and closes the
    /// file. Idempotent. Call `flush()` first to hear of a failed write.
    public func close() {
        guard let file else { return }
        try? flush()
        sf_close(file)
        self.file = nil
    }

    deinit { close() }
}
