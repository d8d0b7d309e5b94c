import NIOCore
import NIOPosix
import Realtime

/// The page's threads: NIO's event loops (`pj-web-1`, `pj-web-2`), which carry the HTTP and
/// WebSocket I/O; idle, they sleep in epoll_wait. The pages' own tasks run on Swift
/// concurrency's pool (libdispatch's threads, under libdispatch's names): taking that pool over
/// with NIO's loops made ThreadSanitizer report a lock-order inversion between the concurrency
/// runtime and swift-async-algorithms' merge, so it is left alone.
enum WebThreads {
    /// Once, before the server starts: the loops named, each having run a task.
    static let prepared: Void = {
        // The tuple each loop's tick builds for its metrics (SelectableEventLoop.runOneLoopTick),
        // made here before the loops start: made by a loop, its metadata can land in a pool of
        // the runtime's that this thread allocated meanwhile, and ThreadSanitizer, blind to the
        // runtime's atomics, then reports the loop's read of it against this thread's malloc.
        GenericMetadata.make((metricsDelegate: any NIOEventLoopMetricsDelegate, tickStartTime: NIODeadline, sleepTime: TimeAmount)?.self)
        let named = MultiThreadedEventLoopGroup.singleton.makeIterator().enumerated().map { index, loop in
            loop.submit { ThreadName.set("pj-web-\(index + 1)") }
        }
        for name in named { try? name.wait() }
    }()
}
