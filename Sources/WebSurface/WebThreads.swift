import NIOCore
import NIOPosix
import Realtime

/// The page's threads: NIO's event loops (`pj-web-1`, `pj-web-2`), which carry the HTTP and
/// WebSocket I/O and — Swift concurrency's global executor taken over, when nothing has used it
/// yet — the pages' own tasks too, so no pool of unnamed threads grows beside them. Idle, they
/// sleep in epoll_wait.
enum WebThreads {
    /// Once, on the main thread (NIO asks for it), before the server starts.
    static let prepared: Void = {
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        for (index, loop) in MultiThreadedEventLoopGroup.singleton.makeIterator().enumerated() {
            loop.execute { ThreadName.set("pj-web-\(index + 1)") }
        }
    }()
}
