/// The person detector's SSD anchors, as MediaPipe's SsdAnchorsCalculator makes them for
/// BlazePose (pose_detection_cpu.pbtxt): five layers on a 224 × 224 input with strides 8, 16,
/// 32, 32, 32, each cell's centre offset by half a cell, fixed size, one aspect ratio plus the
/// interpolated one, so two anchors a cell for each layer of a stride: 28² × 2 + 14² × 2 + 7² × 6
/// = 2254. Only the centres matter (fixed size: width and height 1).
public enum DetectorAnchors {
    static let inputSize = 224
    static let strides = [8, 16, 32, 32, 32]

    /// Each anchor's centre (x, y), normalized, in the model's output order.
    public static let centers: [(x: Float, y: Float)] = {
        var centers: [(x: Float, y: Float)] = []
        var layer = 0
        while layer < strides.count {
            var sameStride = layer
            while sameStride < strides.count && strides[sameStride] == strides[layer] { sameStride += 1 }
            let perCell = 2 * (sameStride - layer)
            let cells = (inputSize + strides[layer] - 1) / strides[layer]
            for y in 0..<cells {
                for x in 0..<cells {
                    let center = (x: (Float(x) + 0.5) / Float(cells), y: (Float(y) + 0.5) / Float(cells))
                    centers += Array(repeating: center, count: perCell)
                }
            }
            layer = sameStride
        }
        return centers
    }()
}
