/// A one-shot sample player: each trigger starts the sample from its first frame, scaled by
/// velocity, on its own playhead. A mono sample plays on both channels.
public final class SampleVoice: Voice {
    public let sample: SampleBuffer
    public let maxPolyphony: Int

    private struct Playhead {
        /// Frames until the note starts.
        var delay: Int
        /// Frames of the sample already played.
        var position: Int
        var velocity: Float
    }

    private let playheads: UnsafeMutablePointer<Playhead>
    private var active = 0

    /// Off the real-time thread.
    public init(sample: SampleBuffer, maxPolyphony: Int = 16) {
        precondition(maxPolyphony > 0)
        self.sample = sample
        self.maxPolyphony = maxPolyphony
        playheads = .allocate(capacity: maxPolyphony)
    }

    deinit { playheads.deallocate() }

    public func prepare(sampleRate: Int, maxFrames: Int) {
        precondition(sampleRate == sample.sampleRate, "sample must be resampled to the engine rate before prepare")
    }

    /// Real-time safe. With every playhead busy, the oldest note is replaced.
    public func trigger(atFrame offset: Int, velocity: Float) {
        let note = Playhead(delay: max(0, offset), position: 0, velocity: velocity)
        if active < maxPolyphony {
            playheads[active] = note
            active += 1
        } else {
            // Age: frames since the note started (negative while it waits for its frame).
            var oldest = 0
            for index in 1..<active
            where playheads[index].position - playheads[index].delay > playheads[oldest].position - playheads[oldest].delay {
                oldest = index
            }
            playheads[oldest] = note
        }
    }

    /// Real-time safe.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        let sourceLeft = sample.left.baseAddress!
        let sourceRight = sample.right.baseAddress!
        let length = sample.frameCount
        var index = 0
        while index < active {
            var note = playheads[index]
            let start = min(note.delay, frames)
            note.delay -= start
            let count = min(frames - start, length - note.position)
            if count > 0 {
                let gain = note.velocity
                for frame in 0..<count {
                    left[start + frame] += sourceLeft[note.position + frame] * gain
                    right[start + frame] += sourceRight[note.position + frame] * gain
                }
                note.position += count
            }
            if note.delay == 0 && note.position >= length {
                active -= 1
                playheads[index] = playheads[active]
            } else {
                playheads[index] = note
                index += 1
            }
        }
    }

    /// Real-time safe.
    public func silence() { active = 0 }
}
