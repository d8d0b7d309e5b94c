/// One video frame as packed 8-bit RGB, row by row from the top, stamped with its capture time.
public struct RGBFrame: Sendable {
    public var width: Int
    public var height: Int
    /// width × height × 3 bytes.
    public var pixels: [UInt8]
    /// Seconds: a camera's buffer time on the monotonic clock, or a file's presentation time.
    public var time: Double

    public init(width: Int, height: Int, pixels: [UInt8], time: Double) {
        precondition(pixels.count == width * height * 3, "an RGB frame holds width × height × 3 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.time = time
    }
}
