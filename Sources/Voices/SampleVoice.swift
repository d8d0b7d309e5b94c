import Realtime
/// A one-shot sample player: each trigger starts the sample from its first frame, scaled by
/// velocity, on its own playhead. A mono sample plays on both channels.
///
/// The clip can be swapped while playing (`swapClip`): notes already sounding finish on the
/// old clip and new notes use the new one, so nothing stops short and nothing clicks.
public final class SampleVoice: Voice {
    public let maxPolyphony: Int
    /// Frames a choked note takes to fade out.
    public static let chokeFrames = 128

    private struct Playhead: BitwiseCopyable {
        /// Frames until the note starts.
        var delay: Int
        /// Frames of the sample already played.
        var position: Int
        var velocity: Float
        /// Frames of fade left once choked (−1: not choked).
        var fade: Int
        /// Plays the clip that was current before the last swap.
        var onRetiring: Bool
    }

    /// A clip's channels and length, as a render reads them.
    private struct ClipSamples {
        let left: UnsafeMutablePointer<Float>
        let right: UnsafeMutablePointer<Float>
        let frameCount: Int

        init(_ clip: SampleBuffer) {
            left = clip.left.baseAddress!
            right = clip.right.baseAddress!
            frameCount = clip.frameCount
        }
    }

    /// The notes sounding or waiting, `playheads.count` of them.
    private var playheads: FixedBuffer<Playhead>
    /// The clip new notes play, and the one the last swap replaced while notes still use it.
    /// Unmanaged: the process thread never touches a reference count.
    private var current: Unmanaged<SampleBuffer>
    private var retiring: Unmanaged<SampleBuffer>?

    /// Control thread.
    /// Notes at once unless a preset says otherwise (the `sample` kind's `polyphony` default).
    public static let defaultPolyphony = 16

    public init(sample: SampleBuffer, maxPolyphony: Int = defaultPolyphony) {
        precondition(maxPolyphony > 0)
        self.maxPolyphony = maxPolyphony
        current = .passRetained(sample)
        playheads = FixedBuffer(capacity: maxPolyphony, count: 0,
                                repeating: Playhead(delay: 0, position: 0, velocity: 0, fade: -1, onRetiring: false))
    }

    deinit {
        current.release()
        retiring?.release()
    }

    /// The clip new notes play.
    public var sample: SampleBuffer { current.takeUnretainedValue() }

    public func prepare(sampleRate: Int, maxFrames: Int) {
        precondition(sampleRate == sample.sampleRate, "sample must be resampled to the engine rate before prepare")
        // A mutating call once here: debug builds instantiate its generic metadata lazily, which
        // allocates, and the first note on the process thread must not be the one that does.
        playheads.setCount(playheads.count)
    }

    /// Real-time safe. Makes `clip` (passed retained) the clip for new notes. Returns false,
    /// changing nothing, while the clip of the previous swap is still sounding: try again later.
    /// A clip that no note needs any more is handed to `release` (the caller's ring back to a
    /// control thread, which releases it there).
    public func swapClip(_ clip: Unmanaged<SampleBuffer>, release: (Unmanaged<SampleBuffer>) -> Void) -> Bool {
        reclaimRetiring(release: release)
        guard retiring == nil else { return false }
        retiring = current
        current = clip
        for index in 0..<playheads.count { playheads[index].onRetiring = true }
        reclaimRetiring(release: release)
        return true
    }

    /// Real-time safe. Hands over the retiring clip once no playhead uses it.
    public func reclaimRetiring(release: (Unmanaged<SampleBuffer>) -> Void) {
        guard let old = retiring else { return }
        for index in 0..<playheads.count where playheads[index].onRetiring { return }
        retiring = nil
        release(old)
    }

    /// Real-time safe. With every playhead busy, the oldest note is replaced.
    public func trigger(atFrame offset: Int, velocity: Float) {
        let note = Playhead(delay: max(0, offset), position: 0, velocity: velocity, fade: -1, onRetiring: false)
        if !playheads.append(note) {
            // Age: frames since the note started (negative while it waits for its frame).
            var oldest = 0
            for index in 1..<playheads.count
            where playheads[index].position - playheads[index].delay > playheads[oldest].position - playheads[oldest].delay {
                oldest = index
            }
            playheads[oldest] = note
        }
    }

    /// Real-time safe.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        // The clips' samples borrowed for this call: the voice holds both, and no reference is counted.
        let fresh = current._withUnsafeGuaranteedRef { ClipSamples($0) }
        let old = retiring?._withUnsafeGuaranteedRef { ClipSamples($0) }
        var index = 0
        while index < playheads.count {
            var note = playheads[index]
            let clip = note.onRetiring ? (old ?? fresh) : fresh
            let sourceLeft = clip.left
            let sourceRight = clip.right
            let length = clip.frameCount
            let start = min(note.delay, frames)
            note.delay -= start
            var count = min(frames - start, length - note.position)
            if note.fade >= 0 { count = min(count, note.fade) }
            if count > 0 {
                if note.fade >= 0 {
                    let step = note.velocity / Float(Self.chokeFrames)
                    var gain = step * Float(note.fade)
                    for frame in 0..<count {
                        left[start + frame] += sourceLeft[note.position + frame] * gain
                        right[start + frame] += sourceRight[note.position + frame] * gain
                        gain -= step
                    }
                    note.fade -= count
                } else {
                    VectorMath.addScaled(sourceLeft + note.position, note.velocity, into: left + start, count: count)
                    VectorMath.addScaled(sourceRight + note.position, note.velocity, into: right + start, count: count)
                }
                note.position += count
            }
            if note.delay == 0 && (note.position >= length || note.fade == 0) {
                playheads.removeSwapping(at: index)
            } else {
                playheads[index] = note
                index += 1
            }
        }
    }

    /// Real-time safe.
    public func silence() { playheads.setCount(0) }

    /// Real-time safe.
    public var isSounding: Bool { playheads.count > 0 }

    /// Real-time safe. Sounding notes fade out over `chokeFrames`; waiting ones are dropped.
    public func choke() {
        var index = 0
        while index < playheads.count {
            if playheads[index].delay > 0 {
                playheads.removeSwapping(at: index)
            } else {
                if playheads[index].fade < 0 { playheads[index].fade = Self.chokeFrames }
                index += 1
            }
        }
    }
}
