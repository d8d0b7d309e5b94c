/// A person's pose frame by frame, as MediaPipe's PoseLandmarkCpu tracks it: the detector finds
/// the person when there is no region yet, the landmark model reads them, and the next frame's
/// region comes from this frame's auxiliary landmarks, so the detector runs again only when the
/// person is lost. Smoothing (a One Euro filter) for live video; off for stills, where each frame
/// is read on its own.
// @unchecked: used by one thread at a time; made on the control thread and handed whole to the
// pose thread at start.
public final class PoseTracker: @unchecked Sendable {
    /// One frame's result.
    public struct Estimate: Sendable {
        public var time: Double
        /// The 33 body landmarks: x and y normalized to the frame, visibility 0…1; nil when no person.
        public var landmarks: [PoseLandmark]?
        /// Whether the detector ran for this frame (else the region came from the last frame).
        public var detected: Bool
        /// The landmark model's presence score (0 when the detector found no one).
        public var presence: Float
    }

    private let detector: PersonDetector
    private let landmarkModel: LandmarkModel
    private let tracks: Bool
    private let smooths: Bool
    private var region: PoseRect?
    private var smoothing = LandmarkSmoothing()
    /// The margin around the alignment square: 1.25, what the landmark model was trained with.
    private let regionScale: Double

    /// `tracks`: carry the region from frame to frame (video); `smooths`: filter the landmarks.
    /// `regionScale` and `anchors` are BlazePose's; the tests change them to show a wrong crop
    /// or anchor layout is caught.
    public init(models: PoseModelFiles, threads: Int = 1, tracks: Bool = true, smooths: Bool = true,
                regionScale: Double = 1.25, anchors: [(x: Float, y: Float)] = DetectorAnchors.centers) throws(PoseError) {
        try LiteRTLibrary.load()
        self.regionScale = regionScale
        detector = try PersonDetector(path: models.detector, threads: threads, anchors: anchors)
        landmarkModel = try LandmarkModel(path: models.landmarks, threads: threads)
        self.tracks = tracks
        self.smooths = smooths
    }

    public func estimate(_ frame: RGBFrame) throws(PoseError) -> Estimate {
        var detected = false
        if region == nil || !tracks {
            detected = true
            guard let person = try detector.detect(frame).first else {
                lose()
                return Estimate(time: frame.time, landmarks: nil, detected: true, presence: 0)
            }
            region = PoseRect.aligned(center: (Double(person.keypoints[0].x), Double(person.keypoints[0].y)),
                                      scale: (Double(person.keypoints[1].x), Double(person.keypoints[1].y)),
                                      imageWidth: frame.width, imageHeight: frame.height)
                .squaredLong(scale: regionScale, imageWidth: frame.width, imageHeight: frame.height)
        }
        guard let current = region else { return Estimate(time: frame.time, landmarks: nil, detected: detected, presence: 0) }
        let (found, presence) = try landmarkModel.landmarks(in: frame, region: current)
        guard var landmarks = found else {
            lose()
            return Estimate(time: frame.time, landmarks: nil, detected: detected, presence: presence)
        }
        if smooths { landmarks = smoothing.apply(landmarks, time: frame.time, width: frame.width, height: frame.height, region: current) }
        let (hips, scale) = (landmarks[33], landmarks[34])
        region = PoseRect.aligned(center: (hips.x, hips.y), scale: (scale.x, scale.y), imageWidth: frame.width, imageHeight: frame.height)
            .squaredLong(scale: regionScale, imageWidth: frame.width, imageHeight: frame.height)
        let body = landmarks.prefix(33).map { PoseLandmark(x: $0.x, y: $0.y, visibility: $0.visibility) }
        return Estimate(time: frame.time, landmarks: body, detected: detected, presence: presence)
    }

    private func lose() {
        region = nil
        smoothing.reset()
    }
}
