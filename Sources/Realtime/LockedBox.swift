import Glibc

/// State shared between non-real-time threads, reachable only inside `withLockedValue` (after
/// swift-nio's `NIOLockedValueBox`). Never used on the process thread: it takes a lock.
///
/// A pthread mutex rather than `Synchronization.Mutex`: the latter waits on a raw futex, which
/// ThreadSanitizer cannot see, so every access it guards would be reported as a race.
// @unchecked: `value` is read and written only inside `withLockedValue`, under `mutex`.
public final class LockedBox<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state, holding the lock; `body` must not use this box again.
    public func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        ProcessThread.assertOutside("a LockedBox's lock")
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
