import Control
import Foundation

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
    }

    /// Seconds without a cycle that count as a stall (a period is milliseconds).
    static let limit = 1.0
    let state = LockedBox(State())
    private let progress = LockedBox<(periods: Int, at: Date)>((0, Date()))

    enum Change {
        case stalled
        case resumed(seconds: Double)
    }

    /// Control thread, every tick: the engine's period count now.
    func observe(periods: Int, now: Date = Date()) -> Change? {
        let (last, at) = progress.withLockedValue { $0 }
        if periods != last {
            progress.withLockedValue { $0 = (periods, now) }
            let wasStalled = state.withLockedValue { $0.stalled }
            guard wasStalled else { return nil }
            let seconds = now.timeIntervalSince(at)
            state.withLockedValue {
                $0.stalled = false
                $0.lastStallSeconds = seconds
            }
            return .resumed(seconds: seconds)
        }
        guard now.timeIntervalSince(at) >= Self.limit, !state.withLockedValue({ $0.stalled }) else { return nil }
        state.withLockedValue {
            $0.stalled = true
            $0.stalls += 1
        }
        return .stalled
    }

    /// After a reconnection (a new server): counting starts again from now.
    func restart(periods: Int, now: Date = Date()) {
        progress.withLockedValue { $0 = (periods, now) }
        state.withLockedValue { $0.stalled = false }
    }
}
