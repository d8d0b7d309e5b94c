/// The two passes that clean what a plugin or the master outputs (`PluginGuard.sanitize`, the
/// master's `OutputChannelPass`), four samples a step in SIMD lanes. Written as scalar loops, the
/// compiler kept them scalar, about 30 instructions a sample. They work on the bits: exponent all
/// ones is NaN or ±Inf, all zeros with a fraction a subnormal.
///
/// Whole loops, not inlined into their callers: this module is optimized in debug builds too
/// (Package.swift), where unoptimized SIMD code is a call per lane operation — with a dozen
/// plugins the debug engine's process thread spent 83 % of its time here, near a whole core, and
/// every live test beside them ran in xruns.
public enum SampleLanes {
    typealias Bits = SIMD4<UInt32>
    typealias Mask = SIMDMask<SIMD4<Int32>>

    /// What the master's pass measures of a channel.
    public struct Figures: Equatable, Sendable {
        public var peak: Float
        public var squares: Float
        public var nonFinite: Int
        public var clipped: Int
    }

    /// Real-time safe. Non-finite and subnormal samples become 0; how many of each there were.
    /// Bounded by `frames`.
    public static func sanitize(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> (nonFinite: Int, subnormal: Int) {
        var nonFinite = Bits(repeating: 0), subnormal = Bits(repeating: 0)
        let whole = frames & ~3
        var frame = 0
        while frame < whole {
            let lanes = clean(UnsafeMutableRawPointer(samples), at: frame)
            nonFinite &+= ones(lanes.nonFinite)
            subnormal &+= ones(lanes.subnormal)
            frame &+= 4
        }
        var found = (nonFinite: Int(nonFinite.wrappedSum()), subnormal: Int(subnormal.wrappedSum()))
        while frame < frames {
            let one = cleanOne(samples, at: frame)
            found.nonFinite += Int(one.nonFinite)
            found.subnormal += Int(one.subnormal)
            frame &+= 1
        }
        return found
    }

    /// Real-time safe. Cleans as `sanitize` does (counting only the non-finite), and measures
    /// the peak, the sum of squares and the samples beyond full scale. For non-negative floats
    /// the bits order as the values do, so the peak is an integer maximum and "beyond full scale"
    /// a comparison with 1.0's bits; the lanes are the four partial sums of squares a scalar loop
    /// kept (sample index mod 4). Bounded by `frames`.
    public static func cleanAndMeasure(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> Figures {
        var peak = Bits(repeating: 0), nonFinite = Bits(repeating: 0), clipped = Bits(repeating: 0)
        var squares = SIMD4<Float>(repeating: 0)
        let whole = frames & ~3
        var frame = 0
        while frame < whole {
            let lanes = clean(UnsafeMutableRawPointer(samples), at: frame)
            let magnitude = lanes.kept & 0x7FFF_FFFF
            peak = pointwiseMax(peak, magnitude)
            nonFinite &+= ones(lanes.nonFinite)
            clipped &+= ones(magnitude .> 0x3F80_0000)
            let value = unsafeBitCast(lanes.kept, to: SIMD4<Float>.self)
            squares += value * value
            frame &+= 4
        }
        var figures = (peak: peak.max(), nonFinite: nonFinite.wrappedSum(), clipped: clipped.wrappedSum())
        var squares0 = squares[0]
        while frame < frames {
            let one = cleanOne(samples, at: frame)
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

    /// Real-time safe. The four samples from `frame` on, read as bits, written back with the
    /// non-finite and subnormal ones as 0; which lanes were which.
    @inline(__always)
    private static func clean(_ samples: UnsafeMutableRawPointer, at frame: Int) -> (kept: Bits, nonFinite: Mask, subnormal: Mask) {
        let bits = samples.loadUnaligned(fromByteOffset: frame &* 4, as: Bits.self)
        let exponent = bits & 0x7F80_0000
        let nonFinite = exponent .== 0x7F80_0000
        let subnormal = (exponent .== 0) .& ((bits & 0x007F_FFFF) .!= 0)
        let kept = bits.replacing(with: 0, where: nonFinite .| subnormal)
        samples.storeBytes(of: kept, toByteOffset: frame &* 4, as: Bits.self)
        return (kept, nonFinite, subnormal)
    }

    /// Real-time safe. 1 in each lane `mask` holds, else 0: to count with.
    @inline(__always)
    private static func ones(_ mask: Mask) -> Bits { Bits(repeating: 0).replacing(with: 1, where: mask) }

    /// Real-time safe. One sample, cleaned as `clean` cleans four (a period's last frames short
    /// of a whole step): its bits as kept, and 1 where it was non-finite or subnormal.
    @inline(__always)
    private static func cleanOne(_ samples: UnsafeMutablePointer<Float>, at frame: Int) -> (kept: UInt32, nonFinite: UInt32, subnormal: UInt32) {
        let bits = samples[frame].bitPattern
        let exponent = bits & 0x7F80_0000
        let nonFinite: UInt32 = exponent == 0x7F80_0000 ? 1 : 0
        let subnormal: UInt32 = exponent == 0 && bits & 0x007F_FFFF != 0 ? 1 : 0
        let kept = nonFinite | subnormal != 0 ? 0 : bits
        samples[frame] = Float(bitPattern: kept)
        return (kept, nonFinite, subnormal)
    }
}
