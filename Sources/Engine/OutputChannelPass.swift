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
            let s = clean(samples[frame])
            samples[frame] = s.sample
            figures.peak = max(figures.peak, s.magnitude)
            figures.nonFinite &+= s.nonFinite
            figures.clipped &+= s.clipped
            squares0 += s.sample * s.sample
            frame &+= 1
        }
        return Figures(peak: Float(bitPattern: figures.peak), squares: (squares0 + squares[1]) + (squares[2] + squares[3]),
                       nonFinite: Int(figures.nonFinite), clipped: Int(figures.clipped))
    }

    /// Real-time safe. One sample cleaned, its magnitude's bits, and whether it was non-finite or beyond full scale.
    @inline(__always)
    private static func clean(_ sample: Float) -> (sample: Float, magnitude: UInt32, nonFinite: UInt32, clipped: UInt32) {
        let bits = sample.bitPattern
        let exponent = bits & 0x7F80_0000
        let nonFinite: UInt32 = exponent == 0x7F80_0000 ? 1 : 0
        let subnormal: UInt32 = exponent == 0 && bits & 0x007F_FFFF != 0 ? 1 : 0
        let kept = nonFinite | subnormal != 0 ? 0 : bits
        let magnitude = kept & 0x7FFF_FFFF
        return (Float(bitPattern: kept), magnitude, nonFinite, magnitude > 0x3F80_0000 ? 1 : 0)
    }
}
