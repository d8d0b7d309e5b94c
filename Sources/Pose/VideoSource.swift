import CVideo
import Inputs

/// Frames from a video file, a still image or a V4L2 camera, through FFmpeg.
// @unchecked: used by one thread at a time; opened on the control thread and handed whole to
// the capture thread at start.
public final class VideoSource: @unchecked Sendable {
    public enum Source: Sendable, Equatable {
        case file(String)
        case camera(String)

        public var name: String {
            switch self {
            case .file(let path): path
            case .camera(let device): device
            }
        }
    }

    private let handle: OpaquePointer
    public let source: Source
    public let width: Int
    public let height: Int
    /// Frames a second as the stream declares it (0 when it does not).
    public let frameRate: Double

    public init(_ source: Source) throws(PoseError) {
        var error = [CChar](repeating: 0, count: 512)
        let opened: OpaquePointer?
        switch source {
        case .file(let path): opened = pj_video_open(path, 0, &error, error.count)
        case .camera(let device): opened = pj_video_open(device, 1, &error, error.count)
        }
        guard let opened else { throw PoseError("\(source.name): \(String(message: error))") }
        handle = opened
        self.source = source
        width = Int(pj_video_width(opened))
        height = Int(pj_video_height(opened))
        frameRate = pj_video_frame_rate(opened)
    }

    deinit { pj_video_close(handle) }

    /// The next frame, or nil at the end.
    public func next() throws(PoseError) -> RGBFrame? {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var seconds = 0.0
        var error = [CChar](repeating: 0, count: 512)
        let result = pj_video_next(handle, &pixels, &seconds, &error, error.count)
        guard result >= 0 else { throw PoseError("\(source.name): \(String(message: error))") }
        // A file's own number: refused beyond a session's longest (24 h), never trapped on later.
        guard result == 0 || (seconds.isFinite && abs(seconds) <= HeartSession.maximumSeconds) else {
            throw PoseError("\(source.name): a frame's time stamp (\(seconds) s) is beyond 24 hours")
        }
        return result == 0 ? nil : RGBFrame(width: width, height: height, pixels: pixels, time: seconds)
    }
}
