import BodySignals

/// The body as the page draws it over the regions: each landmark in the regions' own coordinates
/// (from the hip centre, in torso lengths, up and toward the performer's right positive, as
/// `PoseHands` measures the fists), with its visibility, and the region model's thresholds, as
/// one JSON object: `{"points": [[x, y, visibility] × 33], "thresholds": {"up": [enter, exit], …}}`.
public enum PoseSkeleton {
    public static func json(_ landmarks: [PoseLandmark], width: Int, height: Int, regions: RegionModel) -> String? {
        guard let frame = PoseHands.Frame(landmarks, width: width, height: height) else { return nil }
        let points = landmarks.prefix(33).map { landmark in
            let point = frame.relative(landmark)
            return "[\(number(point.x)),\(number(point.y)),\(number(landmark.visibility))]"
        }
        let thresholds = RegionModel.Direction.allCases.compactMap { direction in
            regions.thresholds[direction].map { "\"\(direction)\":[\(number($0.enter / regions.scale)),\(number($0.exit / regions.scale))]" }
        }
        return "{\"points\":[\(points.joined(separator: ","))],\"thresholds\":{\(thresholds.joined(separator: ","))}}"
    }

    private static func number(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3f", value) : "null"
    }
}
