/// The one pass over a channel of the finished output (`MasterStage`): a non-finite or subnormal
/// sample becomes 0 (a non-finite one counted), a sample beyond full scale is counted as clipped, and the
/// channel's peak and sum of squares are measured for the meters — what took five passes and the
/// meter's sixth before.
///
/// Branch-free, four samples a step with four partial sums, so that it vectorises: every sample
/// is written back. It works on the bits: exponent all ones is NaN or ±Inf, all zeros with a
/// fraction a subnormal; for non-negative floats the bits order as the values do, so the peak is
/// an integer maximum and "beyond full scale" a comparison with 1.0's bits.
enum OutputChannelPass {
    struct Figures {
        var peak: Float
        var squares: Float
        var nonFinite: Int
        var clipped: Int
    }

    /// Real-time safe. Bounded by `frames`.
    static func run(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> Figures {
        var peak: UInt32 = 0, nonFinite: UInt32 = 0, clipped: UInt32 = 0
        var squares0: Float = 0, squares1: Float = 0, squares2: Float = 0, squares3: Float = 0
        let whole = frames & ~3
        var frame = 0
        while frame < whole {
            let s0 = clean(samples[frame]), s1 = clean(samples[frame + 1])
            let s2 = clean(samples[frame + 2]), s3 = clean(samples[frame + 3])
            samples[frame] = s0.sample
            samples[frame + 1] = s1.sample
            samples[frame + 2] = s2.sample
            samples[frame + 3] = s3.sample
            peak = max(peak, max(max(s0.magnitude, s1.magnitude), max(s2.magnitude, s3.magnitude)))
            nonFinite &+= s0.nonFinite &+ s1.nonFinite &+ s2.nonFinite &+ s3.nonFinite
            clipped &+= s0.clipped &+ s1.clipped &+ s2.clipped &+ s3.clipped
            squares0 += s0.sample * s0.sample
            squares1 += s1.sample * s1.sample
            squares2 += s2.sample * s2.sample
            squares3 += s3.sample * s3.sample
            frame += 4
        }
        while frame < frames {
            let s = clean(samples[frame])
            samples[frame] = s.sample
            peak = max(peak, s.magnitude)
            nonFinite &+= s.nonFinite
            clipped &+= s.clipped
            squares0 += s.sample * s.sample
            frame += 1
        }
        return Figures(peak: Float(bitPattern: peak), squares: (squares0 + squares1) + (squares2 + squares3),
                       nonFinite: Int(nonFinite), clipped: Int(clipped))
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
