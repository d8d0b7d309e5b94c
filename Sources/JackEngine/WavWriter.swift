import CSndfile
import Control

/// Writes stereo 32-bit float WAV through libsndfile. Offline, or a disk thread: never the
/// process thread.
///
/// The file is RF64 with libsndfile's auto-downgrade: it stays a plain WAV unless it grows past
/// 4 GB, where a RIFF header's 32-bit sizes would wrap. `close()` finishes the header; a file
/// never closed (a killed process) keeps the sizes of its last `sf_write_sync`.
public final class WavWriter {
    private var file: OpaquePointer?
    private var interleaved: [Float]
    public let path: String
    public private(set) var framesWritten = 0

    public init(path: String, sampleRate: Int, maxFrames: Int) throws {
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
        interleaved = [Float](repeating: 0, count: maxFrames * 2)
    }

    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) throws {
        if interleaved.count < frames * 2 { interleaved = [Float](repeating: 0, count: frames * 2) }
        for frame in 0..<frames {
            interleaved[2 * frame] = left[frame]
            interleaved[2 * frame + 1] = right[frame]
        }
        try interleaved.withUnsafeBufferPointer { try write(interleaved: $0.baseAddress!, frames: frames) }
    }

    /// Writes `frames` stereo frames already interleaved (left, right, left …).
    public func write(interleaved samples: UnsafePointer<Float>, frames: Int) throws {
        guard let file else { throw InputError(file: path, "write after the file was closed") }
        let written = sf_writef_float(file, samples, sf_count_t(frames))
        guard written == sf_count_t(frames) else {
            throw InputError(file: path, "write failed: \(String(cString: sf_strerror(file)))")
        }
        framesWritten += frames
    }

    /// Finishes the header (sizes, `fact` frame count) and closes the file. Idempotent.
    public func close() {
        guard let file else { return }
        sf_close(file)
        self.file = nil
    }

    deinit { close() }
}
