import Foundation
import Glibc
import XCTest
import Realtime

/// `RunningTime` counts the clock's advance between looks, each look's share capped: looks at
/// their loop's pace add up to the clock's time; one look after a pause adds only the cap.
final class RunningTimeTests: XCTestCase {
    func testLooksAtTheirPaceCountTheClocksTime() {
        var time = RunningTime(longestStep: 0.5, now: 1_000)
        var now = 1_000.0, expected = 0.0
        // Uneven looks, all under the cap: the sum is the clock's advance.
        for step in [0.1, 0.13, 0.07, 0.49, 0.1, 0.2] {
            now += step
            expected += step
            XCTAssertEqual(time.look(now: now), expected, accuracy: 1e-9)
        }
        XCTAssertEqual(time.seconds, now - 1_000, accuracy: 1e-9)
    }

    func testAPauseCountsOnlyTheLongestStep() {
        var time = RunningTime(longestStep: 0.5, now: 0)
        time.look(now: 0.1)
        // The CI failure's shape: the process paused for 16.9 s between two looks.
        XCTAssertEqual(time.look(now: 17.0), 0.1 + 0.5, accuracy: 1e-9)
        XCTAssertEqual(time.look(now: 17.1), 0.7, accuracy: 1e-9)
        // A clock that went back counts nothing.
        XCTAssertEqual(time.look(now: 16.0), 0.7, accuracy: 1e-9)
        time.restart(now: 20)
        XCTAssertEqual(time.look(now: 20.25), 0.25, accuracy: 1e-9)
    }

    /// The clock itself: CLOCK_MONOTONIC in seconds, as `clock_gettime` reads it around it.
    func testTheMonotonicClockIsClockGettimes() {
        var before = timespec(), after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        let seconds = MonotonicClock.seconds
        clock_gettime(CLOCK_MONOTONIC, &after)
        XCTAssertGreaterThanOrEqual(seconds, Double(before.tv_sec) + Double(before.tv_nsec) * 1e-9 - 1e-6)
        XCTAssertLessThanOrEqual(seconds, Double(after.tv_sec) + Double(after.tv_nsec) * 1e-9 + 1e-6)
    }
}
