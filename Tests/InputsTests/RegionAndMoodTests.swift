import BodySignals
import Inputs
import XCTest

final class RegionModelTests: XCTestCase {
    /// A hand trajectory: (frame, lx, ly, rx, ry) samples.
    private func hits(_ samples: [(Int64, Double, Double, Double, Double)]) -> [(String, Int64)] {
        var model = RegionModel()
        return samples.flatMap { sample in
            model.update(frame: sample.0, leftX: sample.1, leftY: sample.2, rightX: sample.3, rightY: sample.4)
                .map { ($0.region.name, $0.frame) }
        }
    }

    func testJitterAroundEachThresholdGivesExactlyOneHit() {
        // Hands at rest in the middle (x ±0.2, y 0.5); each threshold then gets jitter around its
        // enter value, never back past its exit value.
        for (name, axis, enter, exit) in [("right-up", 3, 0.8, 0.7), ("right-down", 3, 0.1, 0.2), ("right-right", 2, 0.4, 0.3),
                                           ("left-up", 1, 0.8, 0.7), ("left-down", 1, 0.1, 0.2), ("left-left", 0, -0.4, -0.3)] {
            var samples: [(Int64, Double, Double, Double, Double)] = []
            for index in 0..<40 {
                var pose = [-0.2, 0.5, 0.2, 0.5]
                if index >= 10 {
                    // Oscillate across the enter threshold, staying on the enter side of the exit one.
                    let jitter = (index % 2 == 0 ? 1.0 : -1.0) * abs(enter - exit) * 0.4
                    pose[axis] = enter + jitter
                }
                samples.append((Int64(index) * 480, pose[0], pose[1], pose[2], pose[3]))
            }
            let got = hits(samples)
            XCTAssertEqual(got.map(\.0), [name], "\(name): \(got)")
        }
    }

    func testLeavingPastTheExitThresholdReArmsAndTheHitFrameIsInterpolated() {
        let got = hits([
            (0, -0.2, 0.5, 0.2, 0.5),
            (1000, -0.2, 0.5, 0.2, 0.9),   // right hand crosses 0.8 at 3/4 of the way: frame 750
            (2000, -0.2, 0.5, 0.2, 0.75),  // still above the exit 0.7: no new hit
            (3000, -0.2, 0.5, 0.2, 0.6),   // left
            (4000, -0.2, 0.5, 0.2, 1.0),   // again: 0.6 → 1.0 crosses 0.8 halfway, frame 3500
        ])
        XCTAssertEqual(got.map(\.0), ["right-up", "right-up"])
        XCTAssertEqual(got.map(\.1), [750, 3500])
    }

    func testEachHandReachesOnlyItsOwnSideRegions() {
        // The left hand far right, the right hand far left: no region.
        XCTAssertTrue(hits([(0, 0, 0.5, 0, 0.5), (100, 0.9, 0.5, -0.9, 0.5)]).isEmpty)
        XCTAssertEqual(hits([(0, 0, 0.5, 0, 0.5), (100, -0.9, 0.5, 0.9, 0.5)]).map(\.0).sorted(), ["left-left", "right-right"])
    }
}

final class MoodModelTests: XCTestCase {
    func testWindowAveragesAndRangesIncludingNoDataAndEdges() {
        var model = MoodModel(window: 10)
        XCTAssertNil(model.mood, "no data: undefined")
        model.add(.alpha, 0.4, at: 0)
        model.add(.alpha, 0.6, at: 1)
        XCTAssertEqual(model.average(.alpha)!, 0.5, accuracy: 1e-12)
        XCTAssertEqual(model.mood, "happy", "alpha exactly 0.5 is happy")
        model.add(.alpha, 0.2, at: 2)
        XCTAssertEqual(model.average(.alpha)!, 0.4, accuracy: 1e-12)
        XCTAssertEqual(model.mood, "sad")
        // Samples older than the window drop out: at t = 11.5 only 0.2 (t=2) and 0.9 remain.
        model.add(.alpha, 0.9, at: 11.5)
        XCTAssertEqual(model.average(.alpha)!, 0.55, accuracy: 1e-12)
        XCTAssertEqual(model.mood, "happy")
        model.add(.alpha, .nan, at: 12)
        model.add(.alpha, 1.5, at: 12)
        XCTAssertEqual(model.average(.alpha)!, 0.55, accuracy: 1e-12, "out-of-range values are ignored")
        // A range on a band with no data never holds.
        var calm = MoodModel(window: 5, ranges: [MoodModel.Range(mood: "calm", bands: [.theta: MoodModel.Bounds(atLeast: 0.6)])])
        calm.add(.alpha, 0.9, at: 0)
        XCTAssertNil(calm.mood)
        calm.add(.theta, 0.6, at: 0)
        XCTAssertEqual(calm.mood, "calm", "the range's edge is inside")
    }
}
