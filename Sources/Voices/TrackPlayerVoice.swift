import CRubberBand

/// Plays a track time-stretched in real time by Rubber Band so its tempo follows the heart,
/// pitch unchanged: the time ratio is the track's BPM over the heart's, clamped to a range.
/// Rubber Band's real-time mode allocates nothing after construction with normal parameters;
/// its ratio is set here, on the audio thread, between process calls, as its rules require.
public final class TrackPlayerVoice: Voice, TempoFollowing {
    public let track: SampleBuffer
    /// The track's own tempo (from its `bpm=` tag); nil plays it unstretched.
    public let trackBPM: Double?
    public let ratioRange: ClosedRange<Double>
    private var stretcher: RubberBandState?
    private var position = 0
    private var playing = false
    private var velocity: Float = 1
    private var maxFrames = 0
    private var feedLeft: UnsafeMutablePointer<Float>!, feedRight: UnsafeMutablePointer<Float>!
    private var outLeft: UnsafeMutablePointer<Float>!, outRight: UnsafeMutablePointer<Float>!
    private var channelPointers: UnsafeMutablePointer<UnsafePointer<Float>?>!
    private var outPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>!
    /// Output frames still to drop: Rubber Band's start delay.
    private var toSkip = 0
    public private(set) var timeRatio = 1.0

    public init(track: SampleBuffer, trackBPM: Double?, ratioRange: ClosedRange<Double> = 0.5...2) {
        self.track = track
        self.trackBPM = trackBPM
        self.ratioRange = ratioRange
    }

    deinit {
        if let stretcher { rubberband_delete(stretcher) }
        for buffer in [feedLeft, feedRight, outLeft, outRight] { buffer?.deallocate() }
        channelPointers?.deallocate()
        outPointers?.deallocate()
    }

    /// Off the real-time thread: builds the stretcher and its buffers.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        if let stretcher { rubberband_delete(stretcher) }
        self.maxFrames = maxFrames
        // Real-time mode, pitch 1: no resampler runs, so ratio changes allocate nothing (with
        // OptionPitchHighConsistency the resampler would reallocate its state on every change).
        let options = Int32(RubberBandOptionProcessRealTime.rawValue)
        stretcher = rubberband_new(UInt32(sampleRate), 2, options, 1, 1)
        rubberband_set_max_process_size(stretcher, UInt32(maxFrames))
        for buffer in [feedLeft, feedRight, outLeft, outRight] { buffer?.deallocate() }
        feedLeft = .allocate(capacity: maxFrames); feedRight = .allocate(capacity: maxFrames)
        outLeft = .allocate(capacity: maxFrames); outRight = .allocate(capacity: maxFrames)
        channelPointers = .allocate(capacity: 2)
        outPointers = .allocate(capacity: 2)
        // Prime with the preferred start pad of silence; drop the start delay from the output.
        let pad = Int(rubberband_get_preferred_start_pad(stretcher))
        feedLeft.initialize(repeating: 0, count: maxFrames)
        feedRight.initialize(repeating: 0, count: maxFrames)
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
        rubberband_process(stretcher, channelPointers, UInt32(count), 0)
    }

    /// Real-time safe. The heart's tempo: the track is stretched to match it.
    public func follow(bpm: Double) {
        guard let trackBPM, bpm > 0, let stretcher else { return }
        let ratio = min(max(trackBPM / bpm, ratioRange.lowerBound), ratioRange.upperBound)
        if ratio != timeRatio {
            timeRatio = ratio
            rubberband_set_time_ratio(stretcher, ratio)
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
    }

    /// Real-time safe. Feeds Rubber Band what it asks for and adds what it gives back.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
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
                let got = Int(rubberband_retrieve(stretcher, outPointers, UInt32(want)))
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

    /// Real-time safe.
    public func silence() { playing = false }
}

/// A voice that follows the heart's tempo (the engine calls it on every tempo change).
public protocol TempoFollowing: AnyObject {
    /// Real-time safe.
    func follow(bpm: Double)
}
