/// A sound source the scheduler fires. DSP only: no file or network I/O.
///
/// `prepare` runs off the real-time thread and allocates whatever the voice needs; after it,
/// `trigger`, `render` and `silence` run on the process thread and must not allocate, lock or
/// block. Voices are classes so the engine holds them without copying.
public protocol Voice: AnyObject {
    /// Off the real-time thread. Called before the engine activates, and again (stopped) when
    /// the sample rate or the largest block changes.
    func prepare(sampleRate: Int, maxFrames: Int)

    /// Real-time safe. Starts a note `offset` frames into the next `render` call.
    func trigger(atFrame offset: Int, velocity: Float)

    /// Real-time safe. Adds `frames` frames (at most the prepared `maxFrames`) of output into
    /// `left` and `right`.
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int)

    /// Real-time safe. Stops every sounding and pending note at once.
    func silence()
}
