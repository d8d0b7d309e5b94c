import Realtime

/// What an OSC input counts (and the page's commands, which take the same routes): one case and
/// one description each. The status shows every one under its key (the page prefixes `osc_` and
/// `page_`).
public enum OSCCounter: Int, CounterKind {
    case received, malformed, unknownAddress, badArguments, implausible, lateBundles, tooFarAhead, dropped, ppgBeats, empty
    case kernelDrops, refusedReplies

    public var about: CounterDescription {
        switch self {
        case .received: CounterDescription("received", countedOn: .input)
        case .malformed: CounterDescription("malformed", countedOn: .input)
        case .unknownAddress: CounterDescription("unknown_address", countedOn: .input)
        case .badArguments: CounterDescription("bad_arguments", countedOn: .input)
        // Values no body makes (a heart rate of 400, a NaN): refused.
        case .implausible: CounterDescription("implausible", countedOn: .input)
        case .lateBundles: CounterDescription("late_bundles", countedOn: .input)
        case .tooFarAhead: CounterDescription("too_far_ahead", countedOn: .input)
        // Messages the ring into the engine had no room for.
        case .dropped: CounterDescription("dropped", countedOn: .input)
        case .ppgBeats: CounterDescription("ppg_beats", countedOn: .input)
        // Zero-length datagrams (nothing to decode; counted apart from malformed ones).
        case .empty: CounterDescription("empty", countedOn: .input)
        // Datagrams the kernel dropped because the socket's buffer was full (SO_RXQ_OVFL): its total.
        case .kernelDrops: CounterDescription("kernel_drops", countedOn: .input)
        // Replies and meter subscriptions refused to senders outside `replyTo`.
        case .refusedReplies: CounterDescription("refused_replies", countedOn: .input)
        }
    }
}

/// An OSC input's counters (and the page input's).
public typealias OSCCounters = Counters<OSCCounter>
