import Foundation
import Glibc
import XCTest
import Realtime

/// The cycles' deadline expires only when it is not pushed back: while a "process thread"
/// pushes it twice per deadline, the descriptor stays unreadable; once the pushes stop, it
/// becomes readable, `expired` takes the expiry once, and a push makes it quiet again.
final class CycleDeadlineTests: XCTestCase {
    /// Whether the descriptor becomes readable within `seconds` (poll, the way the control
    /// thread sleeps on it).
    private func readable(_ deadline: CycleDeadline, within seconds: Double) -> Bool {
        var entry = pollfd(fd: deadline.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) == 1
    }

    func testItExpiresOnlyOnceThePushesStop() {
        let deadline = CycleDeadline(seconds: 0.4)
        XCTAssertEqual(deadline.framesBetweenPushes(sampleRate: 48_000), 9_600, "half the deadline's seconds of frames")
        deadline.pushBack()
        // Pushed back every 20 ms for a second and a half: never due.
        for _ in 0..<75 {
            XCTAssertFalse(readable(deadline, within: 0.02), "expired while pushed back")
            deadline.pushBack()
        }
        XCTAssertFalse(deadline.expired())
        // No more pushes: it expires (0.4 s on; allowed far more on a loaded machine).
        XCTAssertTrue(readable(deadline, within: 10), "never expired after the pushes stopped")
        XCTAssertTrue(deadline.expired())
        XCTAssertFalse(deadline.expired(), "an expiry is taken once")
        XCTAssertFalse(readable(deadline, within: 0.1), "a one-shot timer: no second expiry without a push")
        // A push after an unread expiry clears it: the cycles are back.
        deadline.pushBack()
        XCTAssertTrue(readable(deadline, within: 10))
        deadline.pushBack()
        XCTAssertFalse(readable(deadline, within: 0.1), "a push clears an expiry not yet read")
        XCTAssertFalse(deadline.expired())
    }
}
