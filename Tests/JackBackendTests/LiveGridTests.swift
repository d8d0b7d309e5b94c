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
}
