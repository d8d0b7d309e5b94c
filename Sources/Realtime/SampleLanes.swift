/// Four samples at a time in SIMD lanes, for the passes that clean what a plugin or the master
/// outputs (`PluginGuard.sanitize`, the master's `OutputChannelPass`). Written as scalar loops,
/// the compiler kept them scalar, about 30 instructions a sample. It works on the bits: exponent
/// all ones is NaN or ±Inf, all zeros with a fraction a subnormal.
public enum SampleLanes {
    public typealias Bits = SIMD4<UInt32>
    public typealias Mask = SIMDMask<SIMD4<Int32>>

    /// Real-time safe. The four samples from `frame` on, read as bits, written back with the
    /// non-finite and subnormal ones as 0; which lanes were which.
    @inlinable @inline(__always)
    public static func clean(_ samples: UnsafeMutableRawPointer, at frame: Int) -> (kept: Bits, nonFinite: Mask, subnormal: Mask) {
        let bits = samples.loadUnaligned(fromByteOffset: frame &* 4, as: Bits.self)
        let exponent = bits & 0x7F80_0000
        let nonFinite = exponent .== 0x7F80_0000
        let subnormal = (exponent .== 0) .& ((bits & 0x007F_FFFF) .!= 0)
        let kept = bits.replacing(with: 0, where: nonFinite .| subnormal)
        samples.storeBytes(of: kept, toByteOffset: frame &* 4, as: Bits.self)
        return (kept, nonFinite, subnormal)
    }

    /// Real-time safe. 1 in each lane `mask` holds, else 0: to count with.
    @inlinable @inline(__always)
    public static func ones(_ mask: Mask) -> Bits { Bits(repeating: 0).replacing(with: 1, where: mask) }

    /// Real-time safe. One sample, cleaned as `clean` cleans four (a period's last frames short
    /// of a whole step): its bits as kept, and 1 where it was non-finite or subnormal.
    @inlinable @inline(__always)
    public static func cleanOne(_ samples: UnsafeMutablePointer<Float>, at frame: Int) -> (kept: UInt32, nonFinite: UInt32, subnormal: UInt32) {
        let bits = samples[frame].bitPattern
        let exponent = bits & 0x7F80_0000
        let nonFinite: UInt32 = exponent == 0x7F80_0000 ? 1 : 0
        let subnormal: UInt32 = exponent == 0 && bits & 0x007F_FFFF != 0 ? 1 : 0
        let kept = nonFinite | subnormal != 0 ? 0 : bits
        samples[frame] = Float(bitPattern: kept)
        return (kept, nonFinite, subnormal)
    }
}
