import Foundation
import Realtime
import XCTest

/// The process-thread marker: per thread, nested, and off again after the section.
final class ProcessThreadTests: XCTestCase {
    func testTheMarkerIsThreadLocalAndNests() {
        XCTAssertFalse(ProcessThread.isCurrent)
        ProcessThread.enter()
        ProcessThread.enter()
        XCTAssertTrue(ProcessThread.isCurrent)
        let seenElsewhere = LockedBox<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            seenElsewhere.withLockedValue { $0 = ProcessThread.isCurrent }
            done.signal()
        }.start()
        done.wait()
        ProcessThread.exit()
        XCTAssertTrue(ProcessThread.isCurrent, "still inside the outer section")
        ProcessThread.exit()
        XCTAssertFalse(ProcessThread.isCurrent)
        // Read once outside: a lock inside the section is what debug builds stop at.
        XCTAssertEqual(seenElsewhere.withLockedValue { $0 }, false, "another thread is not the process thread")
    }
}
