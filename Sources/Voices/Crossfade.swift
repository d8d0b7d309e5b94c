/// A linear crossfade between two stereo signals, for swaps made while playing (a new clip, the
/// next track): gain rises from `done / length` by 1/`length` a frame, capped at 1.
enum Crossfade {
    /// Real-time safe. Adds old·(1 − gain) + new·gain into `left`/`right` for `frames` frames.
    @inline(__always)
    static func mix(oldLeft: UnsafePointer<Float>, oldRight: UnsafePointer<Float>,
                    newLeft: UnsafePointer<Float>, newRight: UnsafePointer<Float>,
                    into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>,
                    frames: Int, done: Int, length: Int) {
        let step = 1 / Float(length)
        for frame in 0..<frames {
            let gain = min(1, Float(done + frame) * step)
            left[frame] += oldLeft[frame] * (1 - gain) + newLeft[frame] * gain
            right[frame] += oldRight[frame] * (1 - gain) + newRight[frame] * gain
        }
    }
}
