import Foundation

/// One frame's pose as `pulsejack pose` prints it: a line of text, or one JSON object
/// (`{"time": s, "landmarks": [[x, y, visibility] × 33] or null, "hands": [lx, ly, rx, ry] or null}`).
public struct PoseReport: Sendable {
    public var estimate: PoseTracker.Estimate
    public var hands: PoseHands?

    public init(_ estimate: PoseTracker.Estimate, width: Int, height: Int) {
        self.estimate = estimate
        hands = estimate.landmarks.flatMap { PoseHands($0, width: width, height: height) }
    }

    private static func number(_ value: Double, _ digits: Int = 5) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "null"
    }

    public var json: String {
        let landmarks = estimate.landmarks.map { list in
            "[" + list.map { "[\(Self.number($0.x)),\(Self.number($0.y)),\(Self.number($0.visibility, 4))]" }.joined(separator: ",") + "]"
        } ?? "null"
        let hands = self.hands.map { "[" + $0.values.map { Self.number($0, 4) }.joined(separator: ",") + "]" } ?? "null"
        return "{\"time\":\(Self.number(estimate.time, 6)),\"landmarks\":\(landmarks),\"hands\":\(hands)}"
    }

    public var text: String {
        let time = String(format: "%9.3f s", estimate.time)
        let how = estimate.detected ? "detecting" : "tracking "
        guard let landmarks = estimate.landmarks else { return "\(time)  \(how)  no one" }
        let hands = self.hands.map { String(format: "fists L %+.2f %+.2f  R %+.2f %+.2f", $0.leftX, $0.leftY, $0.rightX, $0.rightY) } ?? "fists unknown"
        let points = landmarks.enumerated().map { String(format: "%d:%.3f,%.3f,%.2f", $0.offset, $0.element.x, $0.element.y, $0.element.visibility) }
        return "\(time)  \(how)  \(hands)  landmarks \(points.joined(separator: " "))"
    }
}
