import Atomics
import Foundation
import Realtime

/// One watch over every heart source. OSC, a replayed session, the live page and the body
/// sensors report each performer's heart data here as it comes; each tick the control thread
/// asks whose heart has gone quiet — `seconds` without data: a dropout, said once, counted,
/// shown, and with the preset's `dropout: {action: fade}` their voices faded — and whose is back.
/// A heart that never sent anything is not in a dropout: `--bpm` alone plays steadily. Any
/// thread reports; the control thread checks — when `nextCheck` says a dropout is due, and at
/// once when a lost heart's data comes back or a heart is first heard (`bell`).
public final class HeartWatch: Sendable {
    public enum Change: Equatable, Sendable {
        case lost(performer: Int)
        case back(performer: Int)
    }

    /// Seconds without heart data that make a dropout (preset `dropout.seconds`).
    public let seconds: Double
    /// Whether a dropout fades the performer's heart-driven voices (preset `dropout.action: fade`).
    public let fades: Bool
    /// Dropouts so far, all performers.
    public let dropouts = ManagedAtomic<Int>(0)
    private let lost: [ManagedAtomic<Bool>]
    /// When each performer's heart data last came (`MonotonicClock` seconds; nil: never).
    private let lastData: LockedBox<[Double?]>
    /// Rung when a lost heart's data comes back (the control thread fades its voices in).
    private let bell: Doorbell?

    public init(performers: Int, seconds: Double, fades: Bool, bell: Doorbell? = nil) {
        precondition(performers >= 1 && seconds > 0)
        self.seconds = seconds
        self.fades = fades
        self.bell = bell
        lost = (0..<performers).map { _ in ManagedAtomic(false) }
        lastData = LockedBox(Array(repeating: nil, count: performers))
    }

    /// Any thread: heart data of `performer` (a tempo, a beat, RR intervals, a pulse wave).
    public func heard(performer: Int, at now: Double = MonotonicClock.seconds) {
        guard performer >= 0 && performer < lost.count else { return }
        let first = lastData.withLockedValue { last in
            defer { last[performer] = now }
            return last[performer] == nil
        }
        // Back from a dropout; or heard for the first time, so a dropout can now come: the
        // control thread, which may sleep with no timer, sets one (`nextCheck`).
        if first || lost[performer].load(ordering: .relaxed) { bell?.ring() }
    }

    /// Control thread: when the next dropout can begin (the earliest heart still heard goes quiet
    /// then, in `MonotonicClock` seconds); nil while no heart can drop out.
    public func nextCheck() -> Double? {
        let last = lastData.withLockedValue { $0 }
        var next: Double?
        for (performer, heard) in last.enumerated() {
            guard let heard, !lost[performer].load(ordering: .relaxed) else { continue }
            let due = heard + seconds
            if next.map({ due < $0 }) ?? true { next = due }
        }
        return next
    }

    /// Control thread: whose heart went quiet and whose came back since the last check.
    public func check(at now: Double = MonotonicClock.seconds) -> [Change] {
        let last = lastData.withLockedValue { $0 }
        var changes: [Change] = []
        for (performer, heard) in last.enumerated() {
            guard let heard else { continue }
            let quiet = now - heard > seconds
            guard quiet != lost[performer].load(ordering: .relaxed) else { continue }
            lost[performer].store(quiet, ordering: .relaxed)
            if quiet { dropouts.wrappingIncrement(ordering: .relaxed) }
            changes.append(quiet ? .lost(performer: performer) : .back(performer: performer))
        }
        return changes
    }

    /// Any thread: whether `performer`'s heart is in a dropout now.
    public func inDropout(performer: Int) -> Bool {
        performer >= 0 && performer < lost.count && lost[performer].load(ordering: .relaxed)
    }
}
