import Realtime
import Synchronization

/// What the process thread counts and a control thread reports. Written only by the process
/// thread (relaxed: each counter stands alone), except `xruns`, which JACK's notification
/// thread counts. Each counter is an `Atomic` inside this object (`AtomicCounting`): the
/// process thread counts every period, and a `ManagedAtomic` would cost a retain, a dynamic
/// call and a release each time.
public final class EngineCounters: Sendable {
    public let periods = Atomic<Int>(0)
    public let framesProcessed = Atomic<Int>(0)
    public let beats = Atomic<Int>(0)
    public let voicesFired = Atomic<Int>(0)
    public let messagesApplied = Atomic<Int>(0)
    /// Messages whose frame had already passed: applied at the start of the period.
    public let lateMessages = Atomic<Int>(0)
    /// Events refused because the event queue was full.
    public let queueOverflows = Atomic<Int>(0)
    /// Tempo updates refused: bpm ≤ 0, above 300, NaN or infinite.
    public let rejectedTempos = Atomic<Int>(0)
    /// Messages naming a voice or region the graph does not have, or an invalid setting.
    public let invalidMessages = Atomic<Int>(0)
    /// Fired-voice reports dropped because nobody drained them.
    public let firedReportsDropped = Atomic<Int>(0)
    public let xruns = Atomic<Int>(0)
    /// Applied messages the session recording could not take (its ring was full).
    public let recordingOverruns = Atomic<Int>(0)
    /// Clip swaps a voice could not take yet (the previous one still under way).
    public let swapsRefused = Atomic<Int>(0)

    /// MIDI notes `midi_out` had no room for.
    public let midiNotesDropped = Atomic<Int>(0)

    /// Tempo messages ignored because the tempo follows the JACK transport.
    public let ignoredTempos = Atomic<Int>(0)

    /// Frames JACK moved on without running the process callback (lost cycles).
    public let framesSkipped = Atomic<Int>(0)
    /// Frames a skip took that a later reading of JACK's clock showed were not lost (wound back).
    public let framesRewound = Atomic<Int>(0)

    /// Pulses due in a cycle JACK ran for no client at a period change (PipeWire): sounded at
    /// the next cycle's first frame.
    public let latePulses = Atomic<Int>(0)

    /// Output samples (per channel) beyond full scale, after the master stage.
    public let clippedSamples = Atomic<Int>(0)
    /// Non-finite output samples (NaN, ±Inf) the last guards (the master stage, the voice
    /// outputs) replaced by zero: none should get past the plugins' own guards.
    public let nonFiniteSamples = Atomic<Int>(0)

    public init() {}

    public struct Snapshot: Sendable, Equatable, Codable {
        public var periods, framesProcessed, beats, voicesFired, messagesApplied: Int
        public var lateMessages, queueOverflows, rejectedTempos, invalidMessages, firedReportsDropped, xruns, swapsRefused, recordingOverruns, midiNotesDropped, ignoredTempos, framesSkipped: Int
        public var clippedSamples: Int
        public var framesRewound: Int
        public var latePulses = 0
        public var nonFiniteSamples = 0
    }

    /// Control thread.
    public func snapshot() -> Snapshot {
        Snapshot(periods: periods.load(ordering: .relaxed),
                 framesProcessed: framesProcessed.load(ordering: .relaxed),
                 beats: beats.load(ordering: .relaxed),
                 voicesFired: voicesFired.load(ordering: .relaxed),
                 messagesApplied: messagesApplied.load(ordering: .relaxed),
                 lateMessages: lateMessages.load(ordering: .relaxed),
                 queueOverflows: queueOverflows.load(ordering: .relaxed),
                 rejectedTempos: rejectedTempos.load(ordering: .relaxed),
                 invalidMessages: invalidMessages.load(ordering: .relaxed),
                 firedReportsDropped: firedReportsDropped.load(ordering: .relaxed),
                 xruns: xruns.load(ordering: .relaxed),
                 swapsRefused: swapsRefused.load(ordering: .relaxed),
                 recordingOverruns: recordingOverruns.load(ordering: .relaxed),
                 midiNotesDropped: midiNotesDropped.load(ordering: .relaxed),
                 ignoredTempos: ignoredTempos.load(ordering: .relaxed),
                 framesSkipped: framesSkipped.load(ordering: .relaxed),
                 clippedSamples: clippedSamples.load(ordering: .relaxed),
                 framesRewound: framesRewound.load(ordering: .relaxed),
                 latePulses: latePulses.load(ordering: .relaxed),
                 nonFiniteSamples: nonFiniteSamples.load(ordering: .relaxed))
    }
}
