import CSndfile
import Control

/// Writes stereo 32-bit float WAV through libsndfile. Offline, or a disk thread: never the
/// process thread.
public final class WavWriter {
    private let file: OpaquePointer
    private var interleaved: [Float]
    public let path: String
    public private(set) var framesWritten = 0

    public init(path: String, sampleRate: Int, maxFrames: Int) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 2
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw InputError(file: path, "cannot write the WAV file: \(String(cString: sf_strerror(nil)))")
        }
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
        let written = sf_writef_float(file, samples, sf_count_t(frames))
        guard written == sf_count_t(frames) else {
            throw InputError(file: path, "write failed: \(String(cString: sf_strerror(file)))")
        }
        framesWritten += frames
    }

    public func close() { sf_write_sync(file) }

    deinit { sf_close(file) }
}
