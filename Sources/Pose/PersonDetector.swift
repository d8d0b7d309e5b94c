import Foundation

/// BlazePose's person detector on a whole frame (MediaPipe's PoseDetectionCpu): the frame
/// letterboxed into 224 × 224 in [-1, 1], the model's 2254 anchors decoded (box and four
/// keypoints: hip centre, a full-body scale point, shoulder centre, an upper-body one), scores
/// above 0.5 kept, weighted non-maximum suppression, the letterbox taken off again.
final class PersonDetector {
    struct Detection {
        var score: Float
        /// xmin, ymin, xmax, ymax, normalized to the frame.
        var box: (Float, Float, Float, Float)
        /// Four (x, y), normalized to the frame.
        var keypoints: [(x: Float, y: Float)]
    }

    private let model: InferenceModel
    private let anchors: [(x: Float, y: Float)]
    private let crop = TensorCrop(width: DetectorAnchors.inputSize, height: DetectorAnchors.inputSize, range: -1...1, border: .zero)
    static let minimumScore: Float = 0.5, suppressionOverlap: Float = 0.3
    private static let anchorCount = 2254, valuesPerAnchor = 12

    init(path: String, threads: Int, anchors: [(x: Float, y: Float)] = DetectorAnchors.centers) throws(PoseError) {
        guard anchors.count == Self.anchorCount else { throw PoseError("the detector needs \(Self.anchorCount) anchors, not \(anchors.count)") }
        self.anchors = anchors
        model = try InferenceModel(path: path, threads: threads)
        try model.expect(input: [1, 224, 224, 3], outputs: [Self.anchorCount * Self.valuesPerAnchor, Self.anchorCount], what: "person detector")
    }

    /// The people found, best first.
    func detect(_ frame: RGBFrame) throws(PoseError) -> [Detection] {
        let whole = PoseRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1, rotation: 0)
        let (rect, letterbox) = crop.pixelRect(whole, frameWidth: frame.width, frameHeight: frame.height, keepAspectRatio: true)
        crop.fill(model.input(0), from: frame, rect: rect)
        try model.run()
        let found = Self.suppressed(Self.decode(boxes: model.output(0), scores: model.output(1), anchors: anchors))
        let (left, top, right, bottom) = (Float(letterbox.0), Float(letterbox.1), Float(letterbox.2), Float(letterbox.3))
        let (spanX, spanY) = (1 - left - right, 1 - top - bottom)
        return found.map { detection in
            var detection = detection
            detection.box = ((detection.box.0 - left) / spanX, (detection.box.1 - top) / spanY,
                             (detection.box.2 - left) / spanX, (detection.box.3 - top) / spanY)
            detection.keypoints = detection.keypoints.map { ((($0.x - left) / spanX), ($0.y - top) / spanY) }
            return detection
        }
    }

    /// The anchors whose score passes, decoded (MediaPipe's TensorsToDetectionsCalculator with
    /// `reverse_output_order`: x before y; offsets in input pixels).
    static func decode(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>, anchors: [(x: Float, y: Float)]) -> [Detection] {
        let scale = Float(DetectorAnchors.inputSize)
        var found: [Detection] = []
        for (index, anchor) in anchors.enumerated() {
            let score = 1 / (1 + exp(-min(max(scores[index], -100), 100)))
            guard score >= minimumScore else { continue }
            let raw = index * valuesPerAnchor
            let (x, y) = (boxes[raw] / scale + anchor.x, boxes[raw + 1] / scale + anchor.y)
            let (width, height) = (boxes[raw + 2] / scale, boxes[raw + 3] / scale)
            let keypoints = (0..<4).map { point in
                (x: boxes[raw + 4 + 2 * point] / scale + anchor.x, y: boxes[raw + 5 + 2 * point] / scale + anchor.y)
            }
            found.append(Detection(score: score, box: (x - width / 2, y - height / 2, x + width / 2, y + height / 2), keypoints: keypoints))
        }
        return found
    }

    /// MediaPipe's weighted non-maximum suppression: the best remaining detection and all that
    /// overlap it by more than 0.3 (intersection over union) become one, their boxes and
    /// keypoints averaged by score, the best one's score kept.
    static func suppressed(_ detections: [Detection]) -> [Detection] {
        var remaining = detections.sorted { $0.score > $1.score }
        var kept: [Detection] = []
        while let best = remaining.first {
            let overlapping = remaining.filter { overlap($0.box, best.box) > suppressionOverlap }
            guard !overlapping.isEmpty else {
                kept.append(best)
                break
            }
            remaining.removeAll { overlap($0.box, best.box) > suppressionOverlap }
            let total = overlapping.reduce(0) { $0 + $1.score }
            var merged = best
            merged.box = overlapping.reduce((Float(0), Float(0), Float(0), Float(0))) { sum, candidate in
                (sum.0 + candidate.box.0 * candidate.score, sum.1 + candidate.box.1 * candidate.score,
                 sum.2 + candidate.box.2 * candidate.score, sum.3 + candidate.box.3 * candidate.score)
            }
            merged.box = (merged.box.0 / total, merged.box.1 / total, merged.box.2 / total, merged.box.3 / total)
            merged.keypoints = (0..<best.keypoints.count).map { point in
                let sum = overlapping.reduce((x: Float(0), y: Float(0))) {
                    ($0.x + $1.keypoints[point].x * $1.score, $0.y + $1.keypoints[point].y * $1.score)
                }
                return (sum.x / total, sum.y / total)
            }
            kept.append(merged)
        }
        return kept
    }

    static func overlap(_ a: (Float, Float, Float, Float), _ b: (Float, Float, Float, Float)) -> Float {
        let width = min(a.2, b.2) - max(a.0, b.0), height = min(a.3, b.3) - max(a.1, b.1)
        guard width > 0, height > 0 else { return 0 }
        let intersection = width * height
        let union = (a.2 - a.0) * (a.3 - a.1) + (b.2 - b.0) * (b.3 - b.1) - intersection
        return union > 0 ? intersection / union : 0
    }
}
