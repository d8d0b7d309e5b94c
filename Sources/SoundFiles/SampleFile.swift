import UserFiles
import CSamplerate
import CSndfile
import Voices

/// Reads sound files with libsndfile (WAV, FLAC, OGG …) and resamples them to the engine's rate
/// with libsamplerate's best sinc converter. Off the real-time thread.
public enum SampleFile {
    /// Control thread. Loads `path` as one or two channels at `sampleRate`; a file with more
    /// channels keeps its first two.
    public static func load(path: String, sampleRate: Int) throws -> SampleBuffer {
        try UserFile.requireRegular(path, what: "sound file")
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw InputError(file: path, "cannot open the sound file: \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let frames = Int(info.frames)
        guard channels > 0, info.samplerate > 0 else { throw InputError(file: path, "the sound file has no audio") }
        var interleaved = [Float](repeating: 0, count: frames * channels)
        let read = interleaved.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) }
        guard read == sf_count_t(frames) else {
            throw InputError(file: path, "read \(read) of \(frames) frames: \(String(cString: sf_strerror(file)))")
        }
        var data = (0..<min(channels, 2)).map { channel in
            (0..<frames).map { interleaved[$0 * channels + channel] }
        }
        if Int(info.samplerate) != sampleRate {
            data = try data.map { try resample($0, from: Int(info.samplerate), to: sampleRate, path: path) }
        }
        return SampleBuffer(channelData: data, sampleRate: sampleRate)
    }

    /// Control thread. One channel through libsamplerate (SRC_SINC_BEST_QUALITY).
    static func resample(_ input: [Float], from inputRate: Int, to outputRate: Int, path: String) throws -> [Float] {
        let ratio = Double(outputRate) / Double(inputRate)
        let capacity = Int((Double(input.count) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity)
        var produced = 0
        let status: Int32 = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var request = SRC_DATA()
                request.data_in = inBuffer.baseAddress
                request.input_frames = inBuffer.count
                request.data_out = outBuffer.baseAddress
                request.output_frames = outBuffer.count
                request.src_ratio = ratio
                request.end_of_input = 1
                let result = src_simple(&request, Int32(SRC_SINC_BEST_QUALITY), 1)
                produced = request.output_frames_gen
                return result
            }
        }
        guard status == 0 else {
            throw InputError(file: path, "resampling failed: \(String(cString: src_strerror(status)))")
        }
        return Array(output.prefix(produced))
    }
}
