import CProcessThread

/// The process thread, as the calling thread knows itself: marked for the length of each process
/// callback (and each offline period), so that debug builds stop at a lock or a setup call made
/// there, and the allocation test counts what that thread allocates.
public enum ProcessThread {
    /// Real-time safe. Marks the calling thread as running the process path until `exit`.
    @inlinable @inline(__always)
    public static func enter() { pj_rt_enter() }

    /// Real-time safe.
    @inlinable @inline(__always)
    public static func exit() { pj_rt_exit() }

    /// Real-time safe. Subnormal numbers flushed to zero on the calling thread (FTZ/DAZ on
    /// x86-64, FZ on arm64): set at each period's start where the engine renders, live and offline.
    @inlinable @inline(__always)
    public static func flushDenormals() { pj_flush_denormals() }

    /// Real-time safe. Whether the calling thread flushes subnormal numbers.
    public static var flushesDenormals: Bool { pj_denormals_flushed() != 0 }

    /// Real-time safe. Whether the calling thread is running the process path now.
    @inlinable @inline(__always)
    public static var isCurrent: Bool { pj_rt_active() != 0 }

    /// Debug builds stop here when the calling thread is running the process path: `what` (a
    /// lock, a setup step) never belongs there. Release builds check nothing.
    @inline(__always)
    public static func assertOutside(_ what: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
        assert(!isCurrent, "\(what()) on the process thread", file: file, line: line)
    }
}
