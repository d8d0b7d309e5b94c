import Foundation

/// Fills a model's input tensor (height × width × 3 floats) from a rotated rectangle of a frame,
/// as MediaPipe's ImageToTensorCalculator does on the CPU: the rectangle's corners onto the
/// tensor's edges (OpenCV's warpPerspective of the rect's box points), bilinear, each 8-bit
/// value mapped linearly onto `range`.
struct TensorCrop {
    enum Border { case zero, replicate }

    var width: Int
    var height: Int
    var range: ClosedRange<Float>
    var border: Border

    /// The rectangle in pixels: centre, size, rotation.
    struct PixelRect {
        var xCenter, yCenter, width, height, rotation: Double
    }

    /// A frame's rect (normalized) in pixels, grown to the tensor's aspect ratio when
    /// `keepAspectRatio` (MediaPipe's PadRoi), and the letterbox that growth added (left, top,
    /// right, bottom, as fractions of the grown rect).
    func pixelRect(_ rect: PoseRect, frameWidth: Int, frameHeight: Int, keepAspectRatio: Bool) -> (PixelRect, letterbox: (Double, Double, Double, Double)) {
        var pixels = PixelRect(xCenter: rect.xCenter * Double(frameWidth), yCenter: rect.yCenter * Double(frameHeight),
                               width: rect.width * Double(frameWidth), height: rect.height * Double(frameHeight), rotation: rect.rotation)
        guard keepAspectRatio else { return (pixels, (0, 0, 0, 0)) }
        let tensorAspect = Double(height) / Double(width), rectAspect = pixels.height / pixels.width
        var (horizontal, vertical) = (0.0, 0.0)
        if tensorAspect > rectAspect {
            vertical = (1 - rectAspect / tensorAspect) / 2
            pixels.height = pixels.width * tensorAspect
        } else {
            horizontal = (1 - tensorAspect / rectAspect) / 2
            pixels.width = pixels.height / tensorAspect
        }
        return (pixels, (horizontal, vertical, horizontal, vertical))
    }

    /// Writes the tensor from `frame`'s `rect`, as OpenCV's warpPerspective on 8-bit pixels does
    /// it: each source position rounded to 1/32 pixel, the four neighbours weighed in 15-bit
    /// fixed point, the result rounded back to an 8-bit value. (Interpolated in floating point,
    /// the detector's score and so its region moved by a tenth of a percent, and an elbow's
    /// heatmap refinement, near its 0.5 threshold, by 3 % of the frame.)
    func fill(_ tensor: UnsafeMutableBufferPointer<Float>, from frame: RGBFrame, rect: PixelRect) {
        precondition(tensor.count >= width * height * 3)
        let (cosine, sine) = (cos(rect.rotation), sin(rect.rotation))
        // A tensor step along x and y, in source pixels: the rect's width axis turned by the rotation.
        let stepX = (x: cosine * rect.width / Double(width), y: sine * rect.width / Double(width))
        let stepY = (x: -sine * rect.height / Double(height), y: cosine * rect.height / Double(height))
        let origin = (x: rect.xCenter - stepX.x * Double(width) / 2 - stepY.x * Double(height) / 2,
                      y: rect.yCenter - stepX.y * Double(width) / 2 - stepY.y * Double(height) / 2)
        let scale = (range.upperBound - range.lowerBound) / 255, offset = range.lowerBound
        frame.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<height {
                for column in 0..<width {
                    let x = origin.x + stepX.x * Double(column) + stepY.x * Double(row)
                    let y = origin.y + stepX.y * Double(column) + stepY.y * Double(row)
                    let index = (row * width + column) * 3
                    sample(pixels, frame.width, frame.height, x: x, y: y) { channel, value in
                        tensor[index + channel] = Float(value) * scale + offset
                    }
                }
            }
        }
    }

    /// OpenCV's bilinear table: for each 1/32 step in x and y, the four weights in units of
    /// 2⁻¹⁵, rounded, the largest corrected so that they sum to exactly 2¹⁵.
    private static let weights: [(Int32, Int32, Int32, Int32)] = (0..<32 * 32).map { index in
        let (fx, fy) = (Double(index % 32) / 32, Double(index / 32) / 32)
        let exact = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]
        var rounded = exact.map { Int32(($0 * 32768).rounded()) }
        let most = rounded.indices.max { rounded[$0] < rounded[$1] }!
        rounded[most] += 32768 - rounded.reduce(0, +)
        return (rounded[0], rounded[1], rounded[2], rounded[3])
    }

    /// At (x, y) in pixel coordinates (pixel centres on integers), as OpenCV's INTER_LINEAR.
    @inline(__always)
    private func sample(_ pixels: UnsafeBufferPointer<UInt8>, _ frameWidth: Int, _ frameHeight: Int, x: Double, y: Double,
                        _ write: (Int, Int32) -> Void) {
        let (fixedX, fixedY) = (Int((x * 32).rounded()), Int((y * 32).rounded()))
        let (x0, y0) = (fixedX >> 5, fixedY >> 5)
        let weight = Self.weights[(fixedY & 31) * 32 + (fixedX & 31)]
        var (red, green, blue): (Int32, Int32, Int32) = (0, 0, 0)
        @inline(__always) func add(_ px: Int, _ py: Int, _ weight: Int32) {
            var (px, py) = (px, py)
            if px < 0 || py < 0 || px >= frameWidth || py >= frameHeight {
                guard border == .replicate else { return }
                px = min(max(px, 0), frameWidth - 1)
                py = min(max(py, 0), frameHeight - 1)
            }
            let base = (py * frameWidth + px) * 3
            red += Int32(pixels[base]) * weight
            green += Int32(pixels[base + 1]) * weight
            blue += Int32(pixels[base + 2]) * weight
        }
        add(x0, y0, weight.0)
        add(x0 + 1, y0, weight.1)
        add(x0, y0 + 1, weight.2)
        add(x0 + 1, y0 + 1, weight.3)
        write(0, min(max((red + 16384) >> 15, 0), 255))
        write(1, min(max((green + 16384) >> 15, 0), 255))
        write(2, min(max((blue + 16384) >> 15, 0), 255))
    }
}
