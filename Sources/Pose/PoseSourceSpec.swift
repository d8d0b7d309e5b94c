/// What `--pose` and a preset's `sensors.pose` name: `camera` (the first V4L2 camera,
/// /dev/video0), `camera:/dev/videoN`, or `video:FILE` (a file played at its own rate).
public enum PoseSourceSpec {
    public static let usage = "camera, camera:/dev/videoN or video:FILE"

    public static func parse(_ text: String) throws(PoseError) -> VideoSource.Source {
        if text == "camera" { return .camera("/dev/video0") }
        if text.hasPrefix("camera:"), text.count > "camera:".count { return .camera(String(text.dropFirst("camera:".count))) }
        if text.hasPrefix("video:"), text.count > "video:".count { return .file(String(text.dropFirst("video:".count))) }
        throw PoseError("pose source '\(text)': use \(usage)")
    }
}
