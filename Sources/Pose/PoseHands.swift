/// The fists as the drum regions read them, the camera's `/pose/hands`: each wrist relative to
/// the hip centre, in torso lengths (hip centre to shoulder centre), up positive, and positive
/// toward the performer's own right (a camera facing them sees that on the image's left), so the
/// left hand's "left" region lies at negative x, as in Tambour. Measured in pixels, so a wide
/// frame does not stretch it.
public struct PoseHands: Sendable, Equatable {
    public var leftX: Double
    public var leftY: Double
    public var rightX: Double
    public var rightY: Double

    public init(leftX: Double, leftY: Double, rightX: Double, rightY: Double) {
        (self.leftX, self.leftY, self.rightX, self.rightY) = (leftX, leftY, rightX, rightY)
    }

    /// The hands in a frame of `width` × `height`; nil when the torso has no length.
    public init?(_ landmarks: [PoseLandmark], width: Int, height: Int) {
        guard let frame = Frame(landmarks, width: width, height: height) else { return nil }
        let (left, right) = (frame.relative(landmarks[PoseLandmark.leftWrist]), frame.relative(landmarks[PoseLandmark.rightWrist]))
        self.init(leftX: left.x, leftY: left.y, rightX: right.x, rightY: right.y)
    }

    /// The regions' coordinates in one frame: the hip centre and the torso's length in pixels.
    public struct Frame {
        let width: Double, height: Double
        let hip: (x: Double, y: Double)
        let torso: Double

        public init?(_ landmarks: [PoseLandmark], width: Int, height: Int) {
            guard landmarks.count >= 33 else { return nil }
            (self.width, self.height) = (Double(width), Double(height))
            func pixels(_ index: Int) -> (x: Double, y: Double) { (landmarks[index].x * Double(width), landmarks[index].y * Double(height)) }
            func middle(_ a: Int, _ b: Int) -> (x: Double, y: Double) { ((pixels(a).x + pixels(b).x) / 2, (pixels(a).y + pixels(b).y) / 2) }
            hip = middle(PoseLandmark.leftHip, PoseLandmark.rightHip)
            let shoulder = middle(PoseLandmark.leftShoulder, PoseLandmark.rightShoulder)
            torso = ((shoulder.x - hip.x) * (shoulder.x - hip.x) + (shoulder.y - hip.y) * (shoulder.y - hip.y)).squareRoot()
            guard torso > 1e-6 else { return nil }
        }

        /// A landmark from the hip centre in torso lengths, up and toward the performer's right positive.
        public func relative(_ landmark: PoseLandmark) -> (x: Double, y: Double) {
            ((hip.x - landmark.x * width) / torso, (hip.y - landmark.y * height) / torso)
        }
    }

    public var values: [Double] { [leftX, leftY, rightX, rightY] }
}
