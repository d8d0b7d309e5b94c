/// A control message from a sensor or control thread to the process thread.
///
/// A small fixed-size value: no class, `String` or existential inside, so it copies into a ring
/// without allocating. Voices and regions are named by index; names are resolved off the
/// real-time thread when the graph is built.
public struct ControlMessage: Sendable, Equatable, BitwiseCopyable {
    /// Absolute engine frame at which the message takes effect, or `ControlMessage.immediate`.
    public var frame: Int64
    public var event: Event
    /// Whose heart a tempo, beat or presence message is (an index into the preset's
    /// `performers`; 0, the first, when the preset names none). Other messages ignore it.
    public var performer: UInt8

    /// Takes effect at the start of the next period.
    public static let immediate = Int64.min

    public init(frame: Int64 = ControlMessage.immediate, performer: UInt8 = 0, _ event: Event) {
        self.frame = frame
        self.performer = performer
        self.event = event
    }

    public enum Event: Sendable, Equatable, BitwiseCopyable {
        /// The heart rate from this frame on.
        case tempo(bpm: Double)
        /// An explicit beat (a detected heartbeat), with a strength 0…1.
        case heartbeat(strength: Float)
        case voiceTrigger(voice: Int32, velocity: Float)
        case voiceParameter(voice: Int32, VoiceParameter)
        case regionHit(region: Int32, velocity: Float)
        case modeChange(PerformanceMode)
        /// Hand positions relative to the hip (x: left negative; y: up positive).
        case pose(leftX: Float, leftY: Float, rightX: Float, rightY: Float)
        /// An EEG band power, 0…1 (Muse: alpha, beta, delta, theta, gamma).
        case bandPower(EEGBand, Float)
        /// The RR intervals a heart-rate sensor's notification carried, at its arrival: what the
        /// sensor said, for the session log (the beats or tempo they mean travel beside them).
        case rrIntervals(RRIntervals)
        /// Heart data stopped (false) or came back (true); with the preset's dropout action
        /// "fade", the heart-driven voices fade out meanwhile.
        case heartPresence(Bool)
        /// A new clip for a convolution voice (or a new track for a track player), prepared off
        /// the real-time thread (see `ClipSwapper`, `MoodTrackDJ`).
        case swapClip(voice: Int32, clip: RetainedObject)
        /// A control of an LV2 insert (or its bypass) takes a value at this frame.
        case insertControl(InsertAddress, Float)
        /// New instances for an insert (its state loaded live), prepared off the real-time thread;
        /// the address's port is unused. The replaced ones go back to be freed there.
        case swapInsert(InsertAddress, RetainedObject)
        /// A named body signal's value (`/signal/NAME f`: EmotiBit, a breathing belt, a phone),
        /// the name by its index in the preset's signals; a modulation source.
        case signal(index: Int32, Float)
        /// A MIDI controller's value on `midi_in` (0…127), for the modulations that read it.
        case controller(number: UInt8, value: UInt8)
        /// Modulation `index` of the preset switched on or off (the page, `/modulation/N/enable`).
        case modulationEnable(index: Int32, Bool)
        /// JACK moved on this many frames without running the engine (a lost cycle; negative: an
        /// earlier skip was a late reading, and the timeline went back). Only reported, into a
        /// session log, so a re-render passes over the same frames; never applied from a ring.
        case framesSkipped(Int32)

        /// Whether it is a heart speaking (a tempo or a beat), for the dropout watch.
        public var isHeartData: Bool {
            switch self {
            case .tempo, .heartbeat: true
            default: false
            }
        }
    }
}

/// One control of one insert: on a voice's chain or the master's, by stage and port index.
public struct InsertAddress: Sendable, Equatable, Hashable, BitwiseCopyable {
    /// A voice index, or `InsertAddress.master`.
    public var chain: Int32
    /// The insert's position in its chain, from 0.
    public var stage: UInt16
    /// The plugin's port index, or `InsertAddress.bypass`.
    public var port: UInt32

    public static let master: Int32 = -1
    public static let bypass = UInt32.max

    public init(chain: Int32, stage: UInt16, port: UInt32) {
        self.chain = chain
        self.stage = stage
        self.port = port
    }
}

public enum VoiceParameter: Sendable, Equatable, BitwiseCopyable {
    case enable(Bool)
    /// Linear gain, 0…4.
    case gain(Float)
    /// Balance, −1 (left) … +1 (right).
    case pan(Float)
    case rate(BeatRate)
}

/// Tambour's modes: play hits, record them, or loop the recording.
public enum PerformanceMode: UInt8, Sendable, Equatable, BitwiseCopyable, CaseIterable {
    case freestyle, recording, playing
}

public enum EEGBand: UInt8, Sendable, Equatable, BitwiseCopyable, CaseIterable {
    case alpha, beta, delta, theta, gamma
    public var name: String { ["alpha", "beta", "delta", "theta", "gamma"][Int(rawValue)] }
}
