import Realtime
import Synchronization

/// Who listens to the process thread's reports — each fired voice, heartbeat, region hit and
/// mode change: the page's view while a page is open, the events log (`--events-out`). While
/// nobody listens, nothing is reported (no ring fills for nobody, and nothing stale waits for
/// the next page); when a period reported something, the listener's doorbell rings once at its
/// end. A run without listeners (offline) has none of this: everything is reported.
public final class ReportListeners: Sendable {
    /// The listener's thread sleeps on it.
    public let doorbell = Doorbell()
    private let listening = Atomic<Bool>(false)
    private let reported = Atomic<Bool>(false)

    public init() {}

    /// Control thread. Whether reports are wanted from the next period on.
    public func listen(_ on: Bool) { listening.store(on, ordering: .releasing) }

    /// Real-time safe.
    @inline(__always)
    var isListening: Bool { listening.load(ordering: .acquiring) }

    /// Real-time safe. A report went out in this period.
    @inline(__always)
    func noteReported() { reported.store(true, ordering: .relaxed) }

    /// Real-time safe. At the period's end: rings when something was reported.
    @inline(__always)
    func ringIfReported() {
        if reported.load(ordering: .relaxed) {
            reported.store(false, ordering: .relaxed)
            doorbell.ring()
        }
    }
}
