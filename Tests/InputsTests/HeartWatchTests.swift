import Foundation
import XCTest
@testable import Inputs

/// One watch over every heart source: a dropout is a heart that spoke and went quiet.
final class HeartWatchTests: XCTestCase {
    func testAHeartNeverHeardIsNoDropoutAndAQuietOneIsOnceUntilItIsBack() {
        let watch = HeartWatch(performers: 3, seconds: 5, fades: true)
        let start = 1000.0
        XCTAssertEqual(watch.check(at: start + 60), [], "nobody has spoken: a minute of silence is no dropout")
        watch.heard(performer: 0, at: start)
        watch.heard(performer: 1, at: start)
        XCTAssertEqual(watch.check(at: start + 4.9), [])
        watch.heard(performer: 1, at: start + 4.9)
        XCTAssertEqual(watch.check(at: start + 5.1), [.lost(performer: 0)], "5 s quiet; performer 1 spoke 0.2 s ago")
        XCTAssertEqual(watch.check(at: start + 8), [], "said once")
        XCTAssertTrue(watch.inDropout(performer: 0))
        XCTAssertFalse(watch.inDropout(performer: 1))
        XCTAssertFalse(watch.inDropout(performer: 2))
        XCTAssertEqual(watch.check(at: start + 10), [.lost(performer: 1)])
        watch.heard(performer: 0, at: start + 11)
        XCTAssertEqual(watch.check(at: start + 11), [.back(performer: 0)])
        XCTAssertFalse(watch.inDropout(performer: 0))
        XCTAssertEqual(watch.dropouts.load(ordering: .relaxed), 2)
        watch.heard(performer: 7)  // no such performer: ignored
        XCTAssertEqual(watch.check(at: start + 11), [])
    }
}
