import Realtime

/// The one pass over a channel of the finished output (`MasterStage`): a non-finite or subnormal
/// sample becomes 0 (a non-finite one counted), a sample beyond full scale is counted as clipped, and the
/// channel's peak and sum of squares are measured for the meters — what took five passes and the
/// meter's sixth before.
///
/// Four samples a step in SIMD lanes (`SampleLanes`), every sample written back. For
/// non-negative floats the bits order as the values do, so the peak is an integer maximum and
/// "beyond full scale" a comparison with 1.0's bits. The lanes are the four partial sums of
/// squares a scalar loop kept (sample index mod 4).
enum OutputChannelPass {
    struct Figures {
        var peak: Float
        var squares: Float
        var nonFinite: Int
        var clipped: Int
    }

    /// Real-time safe. Bounded by `frames`.
    static func run(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> Figures {
        var peak = SampleLanes.Bits(repeating: 0), nonFinite = SampleLanes.Bits(repeating: 0), clipped = SampleLanes.Bits(repeating: 0)
        var squares = SIMD4<Float>(repeating: 0)
        let whole = frames & ~3
        var frame = 0
        while frame < whole {
            let lanes = SampleLanes.clean(samples, at: frame)
            let magnitude = lanes.kept & 0x7FFF_FFFF
            peak = pointwiseMax(peak, magnitude)
            nonFinite &+= SampleLanes.ones(lanes.nonFinite)
            clipped &+= SampleLanes.ones(magnitude .> 0x3F80_0000)
            let value = unsafeBitCast(lanes.kept, to: SIMD4<Float>.self)
            squares += value * value
            frame &+= 4
        }
        var figures = (peak: peak.max(), nonFinite: nonFinite.wrappedSum(), clipped: clipped.wrappedSum())
        var squares0 = squares[0]
        while frame < frames {
            let one = SampleLanes.cleanOne(samples, at: frame)
            let magnitude = one.kept & 0x7FFF_FFFF
            figures.peak = max(figures.peak, magnitude)
            figures.nonFinite &+= one.nonFinite
            figures.clipped &+= magnitude > 0x3F80_0000 ? 1 : 0
            squares0 += samples[frame] * samples[frame]
            frame &+= 1
        }
        return Figures(peak: Float(bitPattern: figures.peak), squares: (squares0 + squares[1]) + (squares[2] + squares[3]),
                       nonFinite: Int(figures.nonFinite), clipped: Int(figures.clipped))
    }
}
