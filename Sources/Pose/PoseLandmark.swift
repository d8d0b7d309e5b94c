/// One of BlazePose's 33 body landmarks: where in the frame (x and y normalized to its width and
/// height, from the top left), and how likely it is visible.
public struct PoseLandmark: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var visibility: Double

    public init(x: Double, y: Double, visibility: Double) {
        self.x = x
        self.y = y
        self.visibility = visibility
    }

    /// The landmarks the regions read (BlazePose's numbering).
    public static let leftShoulder = 11, rightShoulder = 12, leftWrist = 15, rightWrist = 16, leftHip = 23, rightHip = 24
}
