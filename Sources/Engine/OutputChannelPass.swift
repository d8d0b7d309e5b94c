import Realtime

/// The one pass over a channel of the finished output (`MasterStage`): a non-finite or subnormal
/// sample becomes 0 (a non-finite one counted), a sample beyond full scale is counted as clipped, and the
/// channel's peak and sum of squares are measured for the meters — what took five passes and the
/// meter's sixth before.
///
/// Four samples a step in SIMD lanes, every sample written back (`SampleLanes.cleanAndMeasure`,
/// optimized even in a debug build).
enum OutputChannelPass {
    typealias Figures = SampleLanes.Figures

    /// Real-time safe. Bounded by `frames`.
    @inline(__always)
    static func run(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> Figures {
        SampleLanes.cleanAndMeasure(samples, frames: frames)
    }
}
