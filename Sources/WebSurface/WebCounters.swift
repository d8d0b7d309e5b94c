import Atomics
import Inputs

/// What the web server counts (reported in the page's status and `/pulse/status`-like lists).
public final class WebCounters: Sendable {
    public let pagesOpen = ManagedAtomic<Int>(0)
    public let pagesTotal = ManagedAtomic<Int>(0)
    /// Requests without the token, or with a wrong one (401).
    public let unauthorized = ManagedAtomic<Int>(0)
    /// WebSocket upgrades from another site's page (`Origin` not ours), or to a host name that is
    /// not this machine's while bound to loopback (DNS rebinding): 403.
    public let foreignOrigin = ManagedAtomic<Int>(0)
    /// Upgrades refused because `maximumPages` are open (503).
    public let tooManyPages = ManagedAtomic<Int>(0)
    /// Messages that are not a command (bad JSON, binary, unknown type): the connection closes.
    public let malformed = ManagedAtomic<Int>(0)
    /// Messages over `WebServer.maximumMessageBytes`: the connection closes.
    public let oversized = ManagedAtomic<Int>(0)
    /// Connections closed for sending faster than `WebServer.messagesPerSecond`.
    public let rateLimited = ManagedAtomic<Int>(0)
    /// Meter frames a slow page did not take before the next one (replaced, never queued).
    public let meterFramesDropped = ManagedAtomic<Int>(0)
    /// Pages whose queue of deltas and events overflowed: they get a fresh snapshot instead.
    public let resnapshots = ManagedAtomic<Int>(0)
    public let messagesSent = ManagedAtomic<Int>(0)

    public init() {}

    public var all: [(String, StatusValue)] {
        [("web_pages", pagesOpen), ("web_pages_total", pagesTotal), ("web_unauthorized", unauthorized),
         ("web_foreign_origin", foreignOrigin), ("web_too_many_pages", tooManyPages), ("web_malformed", malformed),
         ("web_oversized", oversized), ("web_rate_limited", rateLimited), ("web_meter_frames_dropped", meterFramesDropped),
         ("web_resnapshots", resnapshots), ("web_messages_sent", messagesSent)]
            .map { ($0, StatusValue.int($1.load(ordering: .relaxed))) }
    }
}
