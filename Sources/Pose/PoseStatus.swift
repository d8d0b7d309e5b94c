import Inputs

/// What the status and the page say of the camera: frames read a second, frames dropped (inference
/// behind), hits later than `--pose-delay` (played at once), dropouts (a camera unplugged, a file
/// ended), detecting or tracking, the person's presence, and the capture → landmarks latency.
public struct PoseStatus: Sendable, Equatable {
    public var source = ""
    public var state = "starting"
    public var framesPerSecond = 0.0
    public var frames = 0
    public var dropped = 0
    public var late = 0
    public var dropouts = 0
    public var presence = 0.0
    /// Capture → landmarks, milliseconds: the median and the largest of the last second's frames.
    public var latencyMedian = 0.0
    public var latencyMax = 0.0

    public init() {}

    public var fields: [(String, StatusValue)] {
        [("pose_source", .text(source)), ("pose_state", .text(state)), ("pose_fps", .float(framesPerSecond)), ("pose_frames", .int(frames)),
         ("pose_dropped", .int(dropped)), ("pose_late", .int(late)), ("pose_dropouts", .int(dropouts)), ("pose_presence", .float(presence)),
         ("pose_latency_ms", .float(latencyMedian)), ("pose_latency_max_ms", .float(latencyMax))]
    }
}
