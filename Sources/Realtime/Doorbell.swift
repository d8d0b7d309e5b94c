import CProcessThread
import Glibc

/// How a thread that waits for work learns it has some: it sleeps on the doorbell, and whoever
/// makes the work rings it. An eventfd, so a thread can also wait on it beside a socket.
///
/// The process thread rings it in a real-time-safe way: a write(2) of 8 bytes to a non-blocking
/// eventfd adds to a kernel counter and wakes the waiter; it never sleeps and takes no lock of
/// ours (the kernel's wait-queue spinlock only, held for a few instructions). It rings only when
/// it has made work (a report, a disk block, a copy asked for), never every period.
public final class Doorbell: Sendable {
    public let descriptor: Int32

    public init() {
        descriptor = pj_eventfd()
        precondition(descriptor >= 0, "eventfd: \(String(cString: strerror(errno)))")
    }

    deinit { close(descriptor) }

    /// Real-time safe.
    @inline(__always)
    public func ring() { pj_eventfd_ring(descriptor) }

    /// Sleeps until rung (the rings so far are taken) or `seconds` have passed (nil: no limit).
    /// True when it was rung.
    @discardableResult
    public func wait(seconds: Double? = nil) -> Bool {
        pj_eventfd_wait(descriptor, -1, Self.nanoseconds(seconds)) & 1 != 0
    }

    /// Sleeps until rung, `descriptor` is readable, or `seconds` have passed; what woke it.
    public func wait(orReadable other: Int32, seconds: Double? = nil) -> (rung: Bool, readable: Bool) {
        let woken = pj_eventfd_wait(descriptor, other, Self.nanoseconds(seconds))
        return (woken & 1 != 0, woken & 2 != 0)
    }

    /// Sleeps until rung, one of `others` (at most 7) is readable, or `seconds` have passed;
    /// whether it was rung.
    @discardableResult
    public func wait(orReadable others: [Int32], seconds: Double? = nil) -> Bool {
        precondition(others.count <= 7, "at most 7 descriptors beside the doorbell")
        return pj_eventfd_wait_any(descriptor, others, Int32(others.count), Self.nanoseconds(seconds)) & 1 != 0
    }

    private static func nanoseconds(_ seconds: Double?) -> Int64 {
        guard let seconds else { return -1 }
        return Int64(max(0, min(seconds, 86_400)) * 1e9)
    }
}
