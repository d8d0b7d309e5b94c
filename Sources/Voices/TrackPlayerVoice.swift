import CRubberBand
import Synchronization
import Realtime

/// Plays a track time-stretched in real time by Rubber Band so its tempo follows the heart,
/// pitch unchanged: the time ratio is the track's BPM over the heart's, clamped to a range.
/// Rubber Band's real-time mode allocates nothing after construction with normal parameters;
/// its ratio is set here, on the audio thread, between process calls, as its rules require.
public final class TrackPlayerVoice: Voice, TempoFollowing, ClipSwapping {
    public private(set) var track: SampleBuffer
    /// The track's own tempo (from its `bpm=` tag); nil plays it unstretched.
    public private(set) var trackBPM: Double?
    public let ratioRange: ClosedRange<Double>
    private var stretcher: RubberBandState?
    private var position = 0
    private var playing = false
    private var velocity: Float = 1
    public private(set) var maxFrames = 0
    /// Eight period buffers in one block, made by `prepare`: feed, out, fade and mix, left and right.
    private var scratch = FixedBuffer<Float>(capacity: 0, repeating: 0)
    private var feedLeft: UnsafeMutablePointer<Float> { scratch.pointer }
    private var feedRight: UnsafeMutablePointer<Float> { scratch.pointer + maxFrames }
    private var outLeft: UnsafeMutablePointer<Float> { scratch.pointer + 2 * maxFrames }
    private var outRight: UnsafeMutablePointer<Float> { scratch.pointer + 3 * maxFrames }
    private var fadeLeft: UnsafeMutablePointer<Float> { scratch.pointer + 4 * maxFrames }
    private var fadeRight: UnsafeMutablePointer<Float> { scratch.pointer + 5 * maxFrames }
    private var mixLeft: UnsafeMutablePointer<Float> { scratch.pointer + 6 * maxFrames }
    private var mixRight: UnsafeMutablePointer<Float> { scratch.pointer + 7 * maxFrames }
    /// Rubber Band's channel pointer arrays (in and out).
    private let channelPointers = FixedBuffer<UnsafePointer<Float>?>(capacity: 2, repeating: nil)
    private let outPointers = FixedBuffer<UnsafeMutablePointer<Float>?>(capacity: 2, repeating: nil)
    /// Output frames still to drop: Rubber Band's start delay.
    private var toSkip = 0
    public private(set) var timeRatio = 1.0
    /// The last heart tempo followed, handed on to a replacement track.
    private var heartBPM: Double?
    /// A replacement track fading in (a swap), and a finished swap's leftover to retire.
    private var incoming: Unmanaged<TrackPlayerVoice>?
    private var leftover: Unmanaged<AnyObject>?
    private var faded = 0
    /// Length of the crossfade between tracks.
    public var crossfadeFrames = 48_000

    /// Real-time safe. Input frames of the track still to play.
    public var remainingFrames: Int { playing ? max(0, track.frameCount - position) : 0 }
    public var isPlaying: Bool { playing }
    /// For other threads (the mood DJ): output frames still to play at the current stretch, −1
    /// when not playing. Published by the process thread after every change.
    private let publishedRemaining = Atomic<Int>(-1)
    /// Real-time safe. Any thread reads it: seconds-independent estimate of the output frames left, nil when not playing.
    public var remainingOutputFrames: Int? {
        let frames = publishedRemaining.load(ordering: .acquiring)
        return frames < 0 ? nil : frames
    }

    /// Real-time safe. Publishes what other threads may read.
    private func publish() {
        publishedRemaining.store(playing ? Int(Double(max(0, track.frameCount - position)) * timeRatio) : -1,
                                 ordering: .releasing)
    }

    /// The time-stretch ratios allowed unless a preset says otherwise (the `track` kind's
    /// `stretch_range` default).
    public static let defaultRatioRange = 0.5...2.0

    public init(track: SampleBuffer, trackBPM: Double?, ratioRange: ClosedRange<Double> = defaultRatioRange) {
        self.track = track
        self.trackBPM = trackBPM
        self.ratioRange = ratioRange
    }

    deinit {
        if let stretcher { rubberband_delete(stretcher) }
        incoming?.release()
        leftover?.release()
    }

    /// Control thread. Builds the stretcher and its buffers.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        if let stretcher { rubberband_delete(stretcher) }
        self.maxFrames = maxFrames
        // Real-time mode, pitch 1: no resampler runs, so ratio changes allocate nothing (with
        // OptionPitchHighConsistency the resampler would reallocate its state on every change).
        let options = Int32(RubberBandOptionProcessRealTime.rawValue)
        stretcher = rubberband_new(UInt32(sampleRate), 2, options, 1, 1)
        rubberband_set_max_process_size(stretcher, UInt32(maxFrames))
        scratch = FixedBuffer(capacity: 8 * maxFrames, repeating: 0)
        // Prime with the preferred start pad of silence; drop the start delay from the output.
        let pad = Int(rubberband_get_preferred_start_pad(stretcher))
        var remaining = pad
        while remaining > 0 {
            let chunk = min(remaining, maxFrames)
            feed(count: chunk)
            remaining -= chunk
        }
        toSkip = Int(rubberband_get_start_delay(stretcher))
    }

    /// Real-time safe.
    private func feed(count: Int) {
        channelPointers[0] = UnsafePointer(feedLeft)
        channelPointers[1] = UnsafePointer(feedRight)
        rubberband_process(stretcher, channelPointers.pointer, UInt32(count), 0)
    }

    /// Real-time safe. The heart's tempo: the track is stretched to match it.
    public func follow(bpm: Double) {
        heartBPM = bpm
        incoming?.takeUnretainedValue().follow(bpm: bpm)
        guard let trackBPM, bpm > 0, let stretcher else { return }
        let ratio = min(max(trackBPM / bpm, ratioRange.lowerBound), ratioRange.upperBound)
        if ratio != timeRatio {
            timeRatio = ratio
            rubberband_set_time_ratio(stretcher, ratio)
            publish()
        }
    }

    /// Real-time safe. Starts the track from its beginning; while it plays, triggers (a beat)
    /// only set its level.
    public func trigger(atFrame offset: Int, velocity: Float) {
        self.velocity = velocity
        guard !playing else { return }
        position = 0
        playing = true
        self.velocity = velocity
        publish()
    }

    /// Real-time safe. Takes a prepared `TrackPlayerVoice` (passed retained) as the next track:
    /// it starts at once and fades in over `crossfadeFrames` while this one fades out, then
    /// takes its place. Returns false while a swap is under way.
    public func swapClip(_ clip: Unmanaged<AnyObject>, retire: (Unmanaged<AnyObject>) -> Void) -> Bool {
        reclaim(retire: retire)
        guard incoming == nil, leftover == nil, let next = clip.takeUnretainedValue() as? TrackPlayerVoice,
              next.maxFrames == maxFrames else { return false }
        incoming = Unmanaged.passUnretained(next)
        faded = 0
        if let heartBPM { next.follow(bpm: heartBPM) }
        next.trigger(atFrame: 0, velocity: 1)
        return true
    }

    public func reclaim(retire: (Unmanaged<AnyObject>) -> Void) {
        if let done = leftover {
            leftover = nil
            retire(done)
        }
    }

    /// Real-time safe. Plays the track, crossfading into a swapped-in one.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        defer { publish() }
        guard let next = incoming?.takeUnretainedValue() else { return renderTrack(left: left, right: right, frames: frames) }
        fadeLeft.update(repeating: 0, count: frames)
        fadeRight.update(repeating: 0, count: frames)
        next.renderTrack(left: fadeLeft, right: fadeRight, frames: frames)
        mixLeft.update(repeating: 0, count: frames)
        mixRight.update(repeating: 0, count: frames)
        renderTrack(left: mixLeft, right: mixRight, frames: frames)
        Crossfade.mix(oldLeft: mixLeft, oldRight: mixRight, newLeft: fadeLeft, newRight: fadeRight, into: left, right, frames: frames,
                      done: faded, length: crossfadeFrames)
        faded += frames
        if faded >= crossfadeFrames {
            // The next track's state becomes ours; ours leaves with the replacement object.
            swap(&stretcher, &next.stretcher)
            swap(&track, &next.track)
            swap(&trackBPM, &next.trackBPM)
            swap(&position, &next.position)
            swap(&playing, &next.playing)
            swap(&toSkip, &next.toSkip)
            swap(&timeRatio, &next.timeRatio)
            swap(&velocity, &next.velocity)
            leftover = Unmanaged.passUnretained(next)
            incoming = nil
        }
    }

    /// Real-time safe. Feeds Rubber Band what it asks for and adds what it gives back.
    private func renderTrack(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        guard playing, let stretcher else { return }
        var written = 0
        // Bounded: each pass either writes output or feeds at least one block of input.
        var passes = 0
        while written < frames && passes < 64 {
            passes += 1
            let available = Int(rubberband_available(stretcher))
            if available > 0 {
                outPointers[0] = outLeft
                outPointers[1] = outRight
                let want = min(available, frames - written + toSkip, maxFrames)
                let got = Int(rubberband_retrieve(stretcher, outPointers.pointer, UInt32(want)))
                var start = 0
                if toSkip > 0 {
                    start = min(toSkip, got)
                    toSkip -= start
                }
                for frame in start..<got {
                    left[written] += outLeft[frame] * velocity
                    right[written] += outRight[frame] * velocity
                    written += 1
                }
                continue
            }
            let required = max(1, min(Int(rubberband_get_samples_required(stretcher)), maxFrames))
            let count = min(required, track.frameCount - position)
            guard count > 0 else {
                playing = false  // the track ended
                return
            }
            let sourceLeft = track.left.baseAddress!, sourceRight = track.right.baseAddress!
            for frame in 0..<count {
                feedLeft[frame] = sourceLeft[position + frame]
                feedRight[frame] = sourceRight[position + frame]
            }
            position += count
            feed(count: count)
        }
    }

    /// Real-time safe. A crossfade sounds even when this track has ended.
    public var isSounding: Bool { playing || incoming != nil }

    /// Real-time safe.
    public func silence() {
        playing = false
        publish()
    }
}

/// A voice that follows the heart's tempo (the engine calls it on every tempo change).
public protocol TempoFollowing: AnyObject {
    /// Real-time safe.
    func follow(bpm: Double)
}
