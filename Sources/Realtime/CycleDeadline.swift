import CProcessThread
import Glibc

/// A watch on JACK's cycles that costs nothing while they run: a deadline (a timerfd) the
/// process thread pushes back every half `seconds` of frames. It expires only when the cycles
/// have stopped — or slowed to under half speed — for at least half `seconds`, and the control
/// thread, asleep on its descriptor beside its doorbell, wakes then to look: no timer wakes it
/// while the server runs.
///
/// Pushing it back is real-time safe: one timerfd_settime, which reprograms a kernel timer under
/// the kernel's spinlock (as an eventfd write takes its wait queue's) and never sleeps. It is
/// made twice a second, not every period.
public final class CycleDeadline: Sendable {
    public let descriptor: Int32
    public let seconds: Double

    public init(seconds: Double = 1) {
        self.seconds = seconds
        descriptor = pj_deadline()
        precondition(descriptor >= 0, "timerfd_create: \(String(cString: strerror(errno)))")
    }

    deinit { close(descriptor) }

    /// Real-time safe. Cycles are running: the deadline moves to `seconds` from now.
    public func pushBack() { pj_deadline_set(descriptor, Int64(seconds * 1e9)) }

    /// Whether it expired since it was last pushed back or read (the expiry is taken; never waits).
    public func expired() -> Bool { pj_deadline_expired(descriptor) != 0 }

    /// Real-time safe. For the process thread's count of frames: how many frames pass between
    /// pushes at `sampleRate` (half the deadline's `seconds`).
    public func framesBetweenPushes(sampleRate: Int) -> Int { max(1, Int(Double(sampleRate) * seconds / 2)) }
}
