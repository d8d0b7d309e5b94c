/// A sound source the scheduler fires. DSP only: no file or network I/O.
///
/// `prepare` runs off the real-time thread and allocates whatever the voice needs; after it,
/// `trigger`, `render`, `silence` and `choke` run on the process thread and must not allocate,
/// lock or block. Voices are classes so the engine holds them without copying.
public protocol Voice: AnyObject {
    /// Control thread. Called before the engine activates, and again (stopped) when
    /// the sample rate or the largest block changes.
    func prepare(sampleRate: Int, maxFrames: Int)

    /// Real-time safe. Starts a note `offset` frames into the next `render` call.
    func trigger(atFrame offset: Int, velocity: Float)

    /// Real-time safe. Adds `frames` frames (at most the prepared `maxFrames`) of output into
    /// `left` and `right`.
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int)

    /// Real-time safe. Stops every sounding and pending note at once.
    func silence()

    /// Real-time safe. False when a `render` now would add nothing and no note waits to start:
    /// the mixer skips the voice until it fires again. The default, true, always renders.
    var isSounding: Bool { get }

    /// Real-time safe. Fades every sounding note out within a few milliseconds (a choke group:
    /// an open hi-hat cut by the closed one), without a click.
    func choke()
}

extension Voice {
    public func choke() { silence() }
    public var isSounding: Bool { true }
}

/// A voice that follows the heartbeat's pulse grid itself (tap figures, arpeggios) instead of
/// being triggered once per fired pulse.
public protocol PulseVoice: Voice {
    /// True: called on every pulse of each fired beat (the voice picks its hits); false: only
    /// on the pulses its rate fires.
    var wantsEveryPulse: Bool { get }

    /// Real-time safe. Pulse `pulse` (of 12 a beat) of beat `beat` is now; a step (the time
    /// to the voice's next call at the current tempo) lasts `stepFrames`. Returns whether a
    /// note started.
    func pulse(beat: Int64, pulse: Int, stepFrames: Double, velocity: Float) -> Bool
}

/// A voice that processes the engine's audio input (dense convolution). It runs once per
/// block of exactly `quantum` frames, not per sub-block: its output depends on the input only.
public protocol InputVoice: Voice {
    var quantum: Int { get }

    /// Real-time safe. Adds the processed `inputLeft`/`inputRight` into `left`/`right`.
    func process(inputLeft: UnsafePointer<Float>, inputRight: UnsafePointer<Float>,
                 left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int)
}

/// A voice that makes its sound once per block rather than per sub-block (a hosted plugin, run
/// once a period). The mixer still calls `render` for every sub-block, without mixing it: the
/// voice counts those frames, so a `trigger` lands at its offset into the block. After the
/// block's last sub-block, `renderBlock` writes the whole block.
public protocol BlockVoice: Voice {
    /// Real-time safe. Writes (overwrites) the block's `frames` frames into `left` and `right`.
    func renderBlock(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int)
}

/// An instrument another voice's figure can play (`instrument:`): the arpeggio's notes or the
/// tap steps go to it instead of to their own sounds.
public protocol NoteSink: AnyObject {
    /// Real-time safe. Plays MIDI note `key` now, held for `lengthFrames`.
    func play(key: Int, velocity: Float, lengthFrames: Int)
}
