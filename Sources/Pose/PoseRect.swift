import Foundation

/// A rotated rectangle in an image, MediaPipe's NormalizedRect: centre, width and height as
/// fractions of the image's, rotation in radians (clockwise in the image, whose y points down).
struct PoseRect: Equatable {
    var xCenter: Double
    var yCenter: Double
    var width: Double
    var height: Double
    var rotation: Double

    /// The rect two alignment points make (MediaPipe's AlignmentPointsRectsCalculator): centred
    /// on `center`, a square twice the distance to `scale` on a side, turned so that the line
    /// from centre to scale point stands upright (`targetAngle` = 90°).
    static func aligned(center: (x: Double, y: Double), scale: (x: Double, y: Double), imageWidth: Int, imageHeight: Int) -> PoseRect {
        let (width, height) = (Double(imageWidth), Double(imageHeight))
        let (x0, y0) = (center.x * width, center.y * height)
        let (x1, y1) = (scale.x * width, scale.y * height)
        let side = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot() * 2
        let rotation = normalized(Double.pi / 2 - atan2(-(y1 - y0), x1 - x0))
        return PoseRect(xCenter: x0 / width, yCenter: y0 / height, width: side / width, height: side / height, rotation: rotation)
    }

    /// MediaPipe's RectTransformationCalculator with `square_long` and a scale: the long side
    /// (in pixels) on both, then enlarged by the margin the landmark model was trained with.
    func squaredLong(scale: Double, imageWidth: Int, imageHeight: Int) -> PoseRect {
        let long = max(width * Double(imageWidth), height * Double(imageHeight))
        var rect = self
        rect.width = long / Double(imageWidth) * scale
        rect.height = long / Double(imageHeight) * scale
        return rect
    }

    /// An angle in [-π, π).
    static func normalized(_ angle: Double) -> Double {
        angle - 2 * Double.pi * ((angle + Double.pi) / (2 * Double.pi)).rounded(.down)
    }
}
