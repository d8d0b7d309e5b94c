import Realtime

/// What the engine counts and a control thread reports: one case and one description each.
/// Every one is in the status (`/pulse/status`, `pulsejack status`, the page) under its key; the
/// ones with summary words are in a run's last line, in this order. All but `xruns` (JACK's
/// notification thread) are counted on the process thread.
public enum EngineCounter: Int, CounterKind {
    case periods, framesProcessed, beats, voicesFired, xruns, framesSkipped, rejectedTempos, lateMessages, clippedSamples
    case sessionLogOverruns, framesRewound, latePulses, nonFiniteSamples, messagesApplied, queueOverflows, invalidMessages
    case midiNotesDropped, swapsRefused, firedReportsDropped, ignoredTempos

    public var about: CounterDescription {
        switch self {
        case .periods: CounterDescription("periods", countedOn: .process)
        case .framesProcessed: CounterDescription("frames_processed", countedOn: .process)
        case .beats: CounterDescription("beats", countedOn: .process, summary: .always("beats"))
        case .voicesFired: CounterDescription("voices_fired", countedOn: .process, summary: .always("voices fired"))
        case .xruns: CounterDescription("xruns", countedOn: .jackNotification, summary: .always("xruns"))
        // Frames JACK moved on without running the process callback (lost cycles).
        case .framesSkipped: CounterDescription("frames_skipped", countedOn: .process, summary: .inParentheses("frames skipped"))
        // Tempo updates refused: bpm ≤ 0, above 300, NaN or infinite.
        case .rejectedTempos: CounterDescription("rejected_tempos", countedOn: .process, summary: .always("tempo updates rejected"))
        // Messages whose frame had already passed: applied at the start of the period.
        case .lateMessages: CounterDescription("late_messages", countedOn: .process, summary: .always("late messages"))
        // Output samples (per channel) beyond full scale, after the master stage.
        case .clippedSamples: CounterDescription("clipped_samples", countedOn: .process, summary: .always("clipped samples"))
        // Applied messages the session log (`--record-session`) could not take: its ring was full.
        case .sessionLogOverruns:
            CounterDescription("session_log_overruns", countedOn: .process, summary: .ifAny("messages lost to a full recording ring"))
        // Frames a skip took that a later reading of JACK's clock showed were not lost (wound back):
        // what was due in them sounded that much early, so the stop line says so.
        case .framesRewound: CounterDescription("frames_rewound", countedOn: .process, summary: .ifAny("frames wound back"))
        // Pulses due in a cycle JACK ran for no client at a period change (PipeWire): sounded at
        // the next cycle's first frame.
        case .latePulses: CounterDescription("late_pulses", countedOn: .process)
        // Non-finite output samples (NaN, ±Inf) the last guards (the master stage, the voice
        // outputs) replaced by zero: none should get past the plugins' own guards.
        case .nonFiniteSamples: CounterDescription("nonfinite_samples", countedOn: .process)
        case .messagesApplied: CounterDescription("messages_applied", countedOn: .process)
        // Events refused because the event queue was full.
        case .queueOverflows: CounterDescription("queue_overflows", countedOn: .process)
        // Messages naming a voice or region the graph does not have, or an invalid setting.
        case .invalidMessages: CounterDescription("invalid_messages", countedOn: .process)
        // MIDI notes a MIDI-out queue or port had no room for.
        case .midiNotesDropped: CounterDescription("midi_notes_dropped", countedOn: .process)
        // Clip swaps a voice could not take yet (the previous one still under way).
        case .swapsRefused: CounterDescription("swaps_refused", countedOn: .process)
        // Fired-voice reports (the events log, the page) dropped because their ring was full.
        case .firedReportsDropped: CounterDescription("fired_reports_dropped", countedOn: .process)
        // Tempo messages ignored because the grid heart follows the JACK transport.
        case .ignoredTempos: CounterDescription("ignored_tempos", countedOn: .process)
        }
    }
}

/// The engine's counters (`EngineHandle.counters`).
public typealias EngineCounters = Counters<EngineCounter>
