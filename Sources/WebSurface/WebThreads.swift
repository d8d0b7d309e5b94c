import NIOCore
import NIOPosix
import Realtime

/// The page's threads: NIO's event loops (`pj-web-1`, `pj-web-2`), which carry the HTTP and
/// WebSocket I/O; idle, they sleep in epoll_wait. The pages' own tasks run on Swift
/// concurrency's pool (libdispatch's threads, under libdispatch's names): taking that pool over
/// with NIO's loops made ThreadSanitizer report a lock-order inversion between the concurrency
/// runtime and swift-async-algorithms' merge, so it is left alone.
enum WebThreads {
    /// Once, before the server starts.
    static let prepared: Void = {
        for (index, loop) in MultiThreadedEventLoopGroup.singleton.makeIterator().enumerated() {
            loop.execute { ThreadName.set("pj-web-\(index + 1)") }
        }
    }()
}
