import Foundation
import Realtime
import Synchronization

/// One asker's request for a copy that only the process thread may make — of settings it alone
/// writes — and the copy's hand-over: idle → requested (the asker) → copying → done (the
/// process thread) → idle (the asker takes it). The asker may withdraw a request the process
/// thread has not begun (`cancel`), so no copy is ever written behind its back: once a request
/// is withdrawn or taken, the copy's buffers are the asker's until it asks again. A process
/// thread that was stalled (a NetJACK2 master away) and comes back finds nothing to serve.
package final class SnapshotHandshake: Sendable {
    private static let idle: UInt8 = 0, requested: UInt8 = 1, copying: UInt8 = 2, done: UInt8 = 3
    private let state = Atomic<UInt8>(SnapshotHandshake.idle)
    /// Rung when a copy is made: the asker sleeps on it instead of looking again and again.
    let answered: Doorbell

    init(answered: Doorbell = Doorbell()) { self.answered = answered }

    /// Asker: asks for a copy, unless one is already asked for or waiting to be taken.
    func request() {
        // Releasing: the asker's reads of the last copy happen before the process thread writes the next.
        _ = state.compareExchange(expected: Self.idle, desired: Self.requested, ordering: .releasing)
    }

    /// Asker: true when the copy asked for is made (its buffers hold it, and the handshake is idle again).
    func take() -> Bool {
        state.compareExchange(expected: Self.done, desired: Self.idle, ordering: .acquiring).exchanged
    }

    /// Asker: withdraws the request. False: withdrawn before the process thread began, and no
    /// copy will be made for it. True: the copy was made (waited for, if the process thread was
    /// copying: a copy is short and runs to its end) and is taken now.
    func cancel() -> Bool {
        // Bounded: the copying state lasts one copy of the settings on a running process thread.
        while true {
            if state.compareExchange(expected: Self.requested, desired: Self.idle, ordering: .relaxed).exchanged { return false }
            if take() { return true }
            if state.load(ordering: .relaxed) == Self.idle { return false }
            sched_yield()
        }
    }

    /// Asker, after copying for itself (the request withdrawn): what it read happens before
    /// whatever the process thread writes from its next period on (`periodBegins`).
    func copiedForItself() { state.store(Self.idle, ordering: .releasing) }

    /// Real-time safe. At each period's start: orders the asker's own copy, made while no period
    /// ran, before this period's writes.
    @inline(__always)
    func periodBegins() { _ = state.load(ordering: .acquiring) }

    /// Real-time safe. Whether a copy is asked for; true begins it (end it with `finish`).
    @inline(__always)
    func begin() -> Bool {
        // Asked every period, answered yes rarely: a plain load first, for a compare-exchange
        // locks the cache line and takes it from the asker even when it fails.
        guard state.load(ordering: .relaxed) == Self.requested else { return false }
        return state.compareExchange(expected: Self.requested, desired: Self.copying, ordering: .acquiring).exchanged
    }

    /// Real-time safe. The copy begun is complete; the asker's doorbell rings.
    @inline(__always)
    func finish() {
        state.store(Self.done, ordering: .releasing)
        answered.ring()
    }

    /// Asker: asks, and sleeps until the copy is made or `timeout` seconds have passed; false
    /// (the request withdrawn, nothing will be copied) when the process thread did not answer.
    func requestAndWait(timeout: Double) -> Bool {
        request()
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while !take() {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return cancel() }
            answered.wait(seconds: Double(deadline - now) / 1e9)
        }
        return true
    }
}
