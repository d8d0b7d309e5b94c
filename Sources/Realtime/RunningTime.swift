import Glibc

/// Seconds on CLOCK_MONOTONIC from an arbitrary start: how long something took, or when a wait
/// ends. Not `Date`: the wall clock is stepped (NTP, a laptop waking, a virtual machine restored
/// and setting its time), which would end a wait early or make a watchdog bite.
public enum MonotonicClock {
    /// Real-time safe (a vDSO read: no system call).
    @inline(__always)
    public static var seconds: Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
    }
}

/// The time a loop that looks every so often has been running: the monotonic clock's advance
/// between two looks, each look adding at most `longestStep`. A look that comes far later than
/// its loop's sleep means this process did not run in between (the machine paused or suspended,
/// the process stopped): whatever it waits for did not run either, so that time is not counted
/// against it. A watchdog counts this, not the clock, and never blames a plugin for a pause.
public struct RunningTime: Sendable {
    public let longestStep: Double
    public private(set) var seconds = 0.0
    private var last: Double

    public init(longestStep: Double, now: Double = MonotonicClock.seconds) {
        self.longestStep = longestStep
        last = now
    }

    /// Real-time safe (a vDSO clock read). Counts the time since the last look (at most
    /// `longestStep` of it); the total.
    @discardableResult
    public mutating func look(now: Double = MonotonicClock.seconds) -> Double {
        seconds += min(max(now - last, 0), longestStep)
        last = now
        return seconds
    }

    /// From zero again, from `now`.
    public mutating func restart(now: Double = MonotonicClock.seconds) {
        seconds = 0
        last = now
    }
}
