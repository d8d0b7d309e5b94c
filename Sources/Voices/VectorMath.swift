/// Block arithmetic on sample buffers: the inner loops of every voice and of the mixer. Plain
/// loops over pointers with no overflow checks inside, which LLVM vectorises (SSE: `mulps` and
/// `addps`, four samples an instruction, behind a runtime check that the buffers do not overlap);
/// the products and sums are the scalar ones, so results do not change.
public enum VectorMath {
    /// Real-time safe. `destination[i] += source[i] * gain` for i in 0..<count.
    @inlinable
    @_noLocks @_noAllocation
    public static func addScaled(_ source: UnsafePointer<Float>, _ gain: Float, into destination: UnsafeMutablePointer<Float>,
                                 count: Int) {
        for index in 0..<count { destination[index] += source[index] * gain }
    }

    /// Real-time safe. `buffer[i] *= gain`, then `destination[i] += buffer[i]`: a voice's bus after
    /// its fader, added into the mix.
    @inlinable
    @_noLocks @_noAllocation
    public static func scaleAndAdd(_ buffer: UnsafeMutablePointer<Float>, _ gain: Float, into destination: UnsafeMutablePointer<Float>,
                                   count: Int) {
        for index in 0..<count {
            let scaled = buffer[index] * gain
            buffer[index] = scaled
            destination[index] += scaled
        }
    }

    /// Real-time safe. `buffer[i] *= gain` for i in 0..<count.
    @inlinable
    @_noLocks @_noAllocation
    public static func scale(_ buffer: UnsafeMutablePointer<Float>, by gain: Float, count: Int) {
        for index in 0..<count { buffer[index] *= gain }
    }
}
