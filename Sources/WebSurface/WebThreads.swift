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
        // One loop runs alone first and stops: every generic metadata an event loop's start and
        // tick need (SelectableEventLoop.runOneLoopTick's tuple of metrics, Optional.map over a
        // private state of NIO's, …) is then made by that one thread, before two loops start
        // together. Made by two loops at once, the runtime makes it under its own wait queue and
        // publishes it with atomics ThreadSanitizer cannot see in uninstrumented libswiftCore,
        // so TSan reports the second loop's read against the first loop's malloc (seen in
        // LivePageSafetyTests; pre-making only the tuple's metadata here left it intermittent).
        let warmUp = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        try? warmUp.next().submit {}.wait()
        try? warmUp.syncShutdownGracefully()
        let named = MultiThreadedEventLoopGroup.singleton.makeIterator().enumerated().map { index, loop in
            loop.submit { ThreadName.set("pj-web-\(index + 1)") }
        }
        for name in named { try? name.wait() }
    }()
}
