import Foundation

/// Runs `body` on `count` threads of their own at once and returns when every one has ended.
/// For tests whose threads mostly wait (on servers, on processes): `concurrentPerform` runs
/// only as many at once as there are cores. The threads are joined, so everything they did,
/// down to releasing what they captured, happens before the return as ThreadSanitizer sees it;
/// a libdispatch group's wait is invisible to it, and a lane's last release then looked like a
/// race with the test reading what it had captured.
public enum JoinedThreads {
    private final class Lane {
        let body: @Sendable (Int) -> Void
        let index: Int
        init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) { (self.body, self.index) = (body, index) }
    }

    public static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        var threads: [pthread_t] = []
        for index in 0..<count {
            let lane = Unmanaged.passRetained(Lane(body, index)).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { context in
                let lane = Unmanaged<Lane>.fromOpaque(context!).takeRetainedValue()
                lane.body(lane.index)
                return nil
            }, lane)
            precondition(created == 0, "pthread_create: \(String(cString: strerror(created)))")
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}
