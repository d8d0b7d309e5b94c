import Foundation

/// BlazePose's full-body landmark model on a region of a frame (MediaPipe's PoseLandmarkByRoiCpu):
/// the rotated region cropped into 256 × 256 in [0, 1], 39 landmarks decoded (33 of the body,
/// then the two auxiliary ones that place the next frame's region), refined on the heatmap,
/// turned back into frame coordinates. Nil when the model says no person is there.
final class LandmarkModel {
    /// One landmark: x and y normalized to the frame, z on x's scale, visibility and presence 0…1.
    struct Landmark: Equatable {
        var x, y, z, visibility, presence: Double
    }

    private let model: InferenceModel
    static let size = 256, count = 39, heatmapSize = 64
    private let crop = TensorCrop(width: size, height: size, range: 0...1, border: .replicate)
    static let presenceThreshold: Float = 0.5

    init(path: String, threads: Int) throws(PoseError) {
        model = try InferenceModel(path: path, threads: threads)
        try model.expect(input: [1, Self.size, Self.size, 3],
                         outputs: [Self.count * 5, 1, Self.size * Self.size, Self.heatmapSize * Self.heatmapSize * Self.count],
                         what: "landmark model")
    }

    /// The landmarks in `region`, or nil when no person is there; and the presence score.
    func landmarks(in frame: RGBFrame, region: PoseRect) throws(PoseError) -> (landmarks: [Landmark]?, presence: Float) {
        let (rect, letterbox) = crop.pixelRect(region, frameWidth: frame.width, frameHeight: frame.height, keepAspectRatio: true)
        crop.fill(model.input(0), from: frame, rect: rect)
        try model.run()
        let presence = model.output(1)[0]
        guard presence >= Self.presenceThreshold else { return (nil, presence) }
        var landmarks = Self.decode(model.output(0))
        Self.refine(&landmarks, heatmap: model.output(3))
        return (landmarks.map { Self.project(Self.withoutLetterbox($0, letterbox), onto: region) }, presence)
    }

    private static func sigmoid(_ value: Float) -> Double { 1 / (1 + exp(-Double(value))) }

    /// MediaPipe's TensorsToLandmarksCalculator: x, y, z in input pixels, visibility and presence
    /// as logits.
    static func decode(_ raw: UnsafeBufferPointer<Float>) -> [Landmark] {
        (0..<count).map { index in
            let base = index * 5, scale = Double(size)
            return Landmark(x: Double(raw[base]) / scale, y: Double(raw[base + 1]) / scale, z: Double(raw[base + 2]) / scale,
                            visibility: sigmoid(raw[base + 3]), presence: sigmoid(raw[base + 4]))
        }
    }

    /// MediaPipe's RefineLandmarksFromHeatmapCalculator (kernel 7, refined where the heatmap's
    /// confidence reaches 0.5): each landmark moved to the confidence-weighted centre of the
    /// 7 × 7 heatmap cells around it.
    static func refine(_ landmarks: inout [Landmark], heatmap: UnsafeBufferPointer<Float>) {
        let side = heatmapSize, offset = 3
        for index in landmarks.indices {
            let column = Int(Float(landmarks[index].x) * Float(side)), row = Int(Float(landmarks[index].y) * Float(side))
            guard (0..<side).contains(column), (0..<side).contains(row) else { continue }
            var (sum, weightedColumn, weightedRow, most): (Float, Float, Float, Float) = (0, 0, 0, 0)
            for cellRow in max(0, row - offset)..<min(side, row + offset + 1) {
                for cellColumn in max(0, column - offset)..<min(side, column + offset + 1) {
                    let confidence = 1 / (1 + exp(-heatmap[(cellRow * side + cellColumn) * count + index]))
                    sum += confidence
                    most = max(most, confidence)
                    weightedColumn += Float(cellColumn) * confidence
                    weightedRow += Float(cellRow) * confidence
                }
            }
            if most >= 0.5 && sum > 0 {
                landmarks[index].x = Double(weightedColumn / Float(side) / sum)
                landmarks[index].y = Double(weightedRow / Float(side) / sum)
            }
        }
    }

    static func withoutLetterbox(_ landmark: Landmark, _ letterbox: (Double, Double, Double, Double)) -> Landmark {
        var landmark = landmark
        let (spanX, spanY) = (1 - letterbox.0 - letterbox.2, 1 - letterbox.1 - letterbox.3)
        landmark.x = (landmark.x - letterbox.0) / spanX
        landmark.y = (landmark.y - letterbox.1) / spanY
        landmark.z /= spanX
        return landmark
    }

    /// MediaPipe's LandmarkProjectionCalculator: from the region's own coordinates into the frame's
    /// (rotated in normalized coordinates, as MediaPipe does).
    static func project(_ landmark: Landmark, onto region: PoseRect) -> Landmark {
        var projected = landmark
        let (x, y) = (landmark.x - 0.5, landmark.y - 0.5)
        let (cosine, sine) = (cos(region.rotation), sin(region.rotation))
        projected.x = (cosine * x - sine * y) * region.width + region.xCenter
        projected.y = (sine * x + cosine * y) * region.height + region.yCenter
        projected.z = landmark.z * region.width
        return projected
    }
}
