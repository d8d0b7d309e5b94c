import Realtime

/// What the page server counts: one case and one description each, in the status under its key.
public enum WebCounter: Int, CounterKind {
    case pagesOpen, pagesTotal, unauthorized, foreignOrigin, tooManyPages, malformed, oversized, rateLimited, meterFramesDropped
    case resnapshots, messagesSent

    public var about: CounterDescription {
        switch self {
        // Pages open now (a gauge: it goes down as pages close).
        case .pagesOpen: CounterDescription("web_pages", countedOn: .page)
        case .pagesTotal: CounterDescription("web_pages_total", countedOn: .page)
        // Requests without the token, or with a wrong one (401).
        case .unauthorized: CounterDescription("web_unauthorized", countedOn: .page)
        // WebSocket upgrades from another site's page (`Origin` not ours), or to a host name that
        // is not this machine's while bound to loopback (DNS rebinding): 403.
        case .foreignOrigin: CounterDescription("web_foreign_origin", countedOn: .page)
        // Upgrades refused because `maximumPages` are open (503).
        case .tooManyPages: CounterDescription("web_too_many_pages", countedOn: .page)
        // Messages that are not a command (bad JSON, binary, unknown type): the connection closes.
        case .malformed: CounterDescription("web_malformed", countedOn: .page)
        // Messages over `WebServer.maximumMessageBytes`: the connection closes.
        case .oversized: CounterDescription("web_oversized", countedOn: .page)
        // Connections closed for sending faster than `WebServer.messagesPerSecond`.
        case .rateLimited: CounterDescription("web_rate_limited", countedOn: .page)
        // Meter frames a slow page did not take before the next one (replaced, never queued).
        case .meterFramesDropped: CounterDescription("web_meter_frames_dropped", countedOn: .page)
        // Pages whose queue of deltas and events overflowed: they get a fresh snapshot instead.
        case .resnapshots: CounterDescription("web_resnapshots", countedOn: .page)
        case .messagesSent: CounterDescription("web_messages_sent", countedOn: .page)
        }
    }
}

/// The page server's counters.
public typealias WebCounters = Counters<WebCounter>
