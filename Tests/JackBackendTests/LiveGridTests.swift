import TestSupport
import XCTest

/// The judge of the live tests' clicks around an xrun, on onsets made here by hand: the two
/// runs of `MisbehavingPluginLiveTests` that lost a period to jackd2's graph under load.
final class LiveGridTests: XCTestCase {
    func testOnTheGridIsNothingOff() {
        XCTAssertEqual(LiveGrid.offGrid(stride(from: Int64(829_120), to: 1_021_120, by: 24_000).map { $0 }, spacing: 24_000), [])
    }

    func testAClickAPeriodLateOrEarlyOrHeardTwiceIsOff() {
        XCTAssertEqual(LiveGrid.offGrid([829_120, 853_120, 877_120, 901_120, 925_120, 949_120, 973_120, 997_120, 1_021_376], spacing: 24_000), [1_021_376])
        XCTAssertEqual(LiveGrid.offGrid([826_816, 850_816, 874_816, 898_816, 922_816, 946_816, 970_816, 994_816, 1_018_560, 1_018_816], spacing: 24_000),
                       [1_018_560, 1_018_816])
        XCTAssertEqual(LiveGrid.offGrid([10_000, 10_256, 34_000, 58_000], spacing: 24_000), [10_256])
    }

    func testAClickOffByPartOfAPeriodOrTwoIsNoGrid() {
        XCTAssertNil(LiveGrid.offGrid([10_000, 34_000, 58_100, 82_000], spacing: 24_000))
        XCTAssertNil(LiveGrid.offGrid([10_000, 34_000, 58_512, 82_000], spacing: 24_000))
    }

    /// CI's runs: the last click heard two periods late, our client late by as much (113 xruns):
    /// off, as a click a period late is, while the xruns' budget covers the period beyond the
    /// first; without it, no grid.
    func testAClickHeardPeriodsLateWithinTheXrunsBudgetIsOff() {
        let heard: [Int64] = [23_953_472, 23_977_472, 24_001_984]
        XCTAssertEqual(LiveGrid.offGrid(heard, spacing: 24_000, lateBudget: 256), [24_001_984])
        XCTAssertNil(LiveGrid.offGrid(heard, spacing: 24_000))
        XCTAssertNil(LiveGrid.offGrid(heard, spacing: 24_000, lateBudget: 255))
    }

    /// The stop line's disturbances: an xrun and the period it skipped are one cycle; a period
    /// wound back is one more, though the net frames skipped are none (PipeWire tells of no xrun).
    func testTheStopLineCountsEveryCycleSkippedOrWoundBack() {
        let quiet = "48512 frames: 3 beats, 2 voices fired, 0 xruns (0 frames skipped), 0 tempo updates rejected"
        XCTAssertTrue(LiveGrid.undisturbed(quiet))
        XCTAssertEqual(LiveGrid.disturbedCycles(in: quiet), 0)
        let woundBack = "48512 frames: 3 beats, 2 voices fired, 0 xruns (0 frames skipped), 0 clipped samples, 256 frames wound back, 1 reconnects"
        XCTAssertEqual(LiveGrid.woundBack(in: woundBack), 256)
        XCTAssertFalse(LiveGrid.undisturbed(woundBack))
        XCTAssertEqual(LiveGrid.disturbedCycles(in: woundBack), 1)
        XCTAssertEqual(LiveGrid.disturbedCycles(in: "1 xruns (256 frames skipped), 0 late messages"), 1)
        XCTAssertEqual(LiveGrid.disturbedCycles(in: "0 xruns (320 frames skipped), 0 late messages, 64 frames wound back"), 3)
        XCTAssertEqual(LiveGrid.disturbedCycles(in: "5 xruns (256 frames skipped)"), 5)
        // A beat a period off is on the grid only within the budget the wound-back period gives.
        XCTAssertTrue(LiveGrid.onGrid([0, 24_000, 47_744, 72_000], framesPerBeat: 24_000, output: woundBack))
        XCTAssertFalse(LiveGrid.onGrid([0, 24_000, 47_744, 72_000], framesPerBeat: 24_000, output: quiet))
    }

    /// CI's jackd2 run: a hat a period late in a disturbed run is on its frame, within the
    /// disturbed cycles only; one more than a period off stays off.
    func testAnOnsetAPeriodOffIsPlacedOnlyForADisturbedCycle() {
        let expected: Set<Int64> = [8_146_368, 8_153_568, 8_160_768]
        XCTAssertEqual(LiveGrid.placedAroundDisturbances([8_146_368, 8_153_824, 8_160_768], expected: expected, disturbed: 1),
                       [8_146_368, 8_153_568, 8_160_768])
        XCTAssertEqual(LiveGrid.placedAroundDisturbances([8_146_368, 8_153_824, 8_160_768], expected: expected, disturbed: 0),
                       [8_146_368, 8_153_824, 8_160_768])
        XCTAssertEqual(LiveGrid.placedAroundDisturbances([8_146_112, 8_153_824, 8_160_768], expected: expected, disturbed: 1),
                       [8_146_368, 8_153_824, 8_160_768])
        XCTAssertEqual(LiveGrid.placedAroundDisturbances([8_146_368, 8_153_900], expected: expected, disturbed: 3), [8_146_368, 8_153_900])
    }

    /// CI's PipeWire runs (0 xruns): a click right after a gap of the ear's own is left out (the
    /// gap excuses the one due in it) unless exactly on its frame, one a period early is on its grid frame, one more than a
    /// period off stays off; against expected frames, the same.
    func testAPipeWireEarsOnsetsArePlacedWithinAPeriodAndAfterItsGaps() {
        let heard: [Int64] = [1_489_744, 1_493_000, 1_495_744, 1_618_744, 1_621_488, 1_624_744, 1_627_400]
        XCTAssertEqual(LiveGrid.placedOnPipeWire(heard, spacing: 3_000, gaps: [1_492_736..<1_492_992]),
                       [1_489_744, 1_495_744, 1_618_744, 1_621_744, 1_624_744, 1_627_400])
        XCTAssertEqual(LiveGrid.placedOnPipeWire([167_488, 174_944, 182_144], expected: [167_744, 174_944, 182_144], gaps: []),
                       [167_744, 174_944, 182_144])
        XCTAssertEqual(LiveGrid.placedOnPipeWire([167_400, 174_944], expected: [167_744, 174_944], gaps: [160_000..<167_200]),
                       [174_944])
        XCTAssertEqual(LiveGrid.placedOnPipeWire([167_400, 174_944], expected: [167_744, 174_944], gaps: []), [167_400, 174_944])
        // One exactly on its frame right after a gap is on time, and kept (CI: 1321200 after 1320448..<1320960).
        XCTAssertEqual(LiveGrid.placedOnPipeWire([1_318_200, 1_321_200, 1_324_200], spacing: 3_000, gaps: [1_320_448..<1_320_960]),
                       [1_318_200, 1_321_200, 1_324_200])
        XCTAssertEqual(LiveGrid.placedOnPipeWire([167_744, 174_944], expected: [167_744, 174_944], gaps: [160_000..<167_600]), [167_744, 174_944])
    }
}
