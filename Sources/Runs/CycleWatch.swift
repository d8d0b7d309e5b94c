import Inputs
import Foundation
import Realtime

/// Notices when JACK stops running cycles while the server is still there — a NetJACK2
/// slave whose master is out of reach waits, cycle-less, until the link is back — and when
/// they come back. Control thread; the status reads `state` from the OSC thread.
final class CycleWatch: Sendable {
    struct State: Sendable {
        /// No cycle for `limit` seconds now.
        var stalled = false
        /// Stalls so far, and the last one's length in seconds (0 while one goes on).
        var stalls = 0
        var lastStallSeconds = 0.0
        /// The period count last seen to change, and when (`MonotonicClock` seconds).
        var periods = 0
        var since = MonotonicClock.seconds
    }

    /// Seconds without a cycle that count as a stall (a period is milliseconds).
    static let limit = 1.0
    let state = LockedBox(State())

    enum Change {
        case stalled
        case resumed(seconds: Double)
    }

    /// Whether no cycle has run for `limit` seconds, as last observed.
    var isStalled: Bool { state.withLockedValue { $0.stalled } }

    /// Control thread. Every tick: the engine's period count now.
    func observe(periods: Int, now: Double = MonotonicClock.seconds) -> Change? {
        state.withLockedValue { state in
            if periods != state.periods {
                let (wasStalled, seconds) = (state.stalled, now - state.since)
                (state.periods, state.since) = (periods, now)
                guard wasStalled else { return nil }
                state.stalled = false
                state.lastStallSeconds = seconds
                return .resumed(seconds: seconds)
            }
            guard now - state.since >= Self.limit, !state.stalled else { return nil }
            state.stalled = true
            state.stalls += 1
            return .stalled
        }
    }

    /// After a reconnection (a new server): counting starts again from now.
    func restart(periods: Int, now: Double = MonotonicClock.seconds) {
        state.withLockedValue { state in
            (state.periods, state.since) = (periods, now)
            state.stalled = false
        }
    }
}
