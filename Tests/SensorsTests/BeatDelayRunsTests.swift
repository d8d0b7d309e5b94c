import TestSupport
import XCTest

/// The judge of the live ECG test, on beats made here from peaks by hand.
final class BeatDelayRunsTests: XCTestCase {
    /// Every half second, give or take 13 or 26 ms.
    let peaks: [Double] = (0..<20).map { (index: Int) -> Double in 5.0 + 0.5 * Double(index) + 0.013 * Double(index % 3) }

    func testOneDelayWithinTheToleranceIsOneRun() {
        let beats: [Double] = peaks.enumerated().map { (index: Int, peak: Double) -> Double in peak + 4.969 + 0.004 * Double(index % 2) }
        let runs: [BeatDelayRuns.Run]? = BeatDelayRuns.runs(beats: beats, peaks: peaks)
        XCTAssertEqual(runs?.map { (run: BeatDelayRuns.Run) -> Int in run.peaks }, [20])
        XCTAssertEqual(runs?.first?.delay ?? 0, 4.971, accuracy: 0.0021)
    }

    /// As JACK's clock fell 46 ms behind the sensor's after the seventh peak, in a TSan run on CI.
    func testAClockSetBackIsASecondRunAtLessDelay() {
        let beats: [Double] = peaks.enumerated().map { (index: Int, peak: Double) -> Double in peak + (index < 7 ? 5.015 : 4.969) }
        let runs: [BeatDelayRuns.Run]? = BeatDelayRuns.runs(beats: beats, peaks: peaks)
        XCTAssertEqual(runs?.map { (run: BeatDelayRuns.Run) -> Int in run.peaks }, [7, 13])
        XCTAssertEqual(runs?.last?.delay ?? 0, 4.969, accuracy: 1e-9)
    }

    func testABeatLateOrMissingIsNoRun() {
        var beats: [Double] = peaks.map { (peak: Double) -> Double in peak + 4.969 }
        XCTAssertEqual(BeatDelayRuns.runs(beats: beats, peaks: peaks)?.count, 1)
        beats[9] += 0.03  // later than the run before it: an xrun never moves JACK's clock forward
        XCTAssertNil(BeatDelayRuns.runs(beats: beats, peaks: peaks))
        beats[9] -= 0.03
        beats.remove(at: 12)
        XCTAssertNil(BeatDelayRuns.runs(beats: beats, peaks: peaks))
    }

    /// The beats (JACK's seconds, from its session) and scipy's peaks of record 208 in the CI run
    /// of 19771f8 under TSan: JACK's clock lost 46 ms after the first judged peak.
    func testTheCIRunWhoseClockWasSetBackIsTwoRuns() {
        let beats: [Double] = [7.091958, 7.636542, 8.152729, 8.670792, 9.182542, 9.709938, 10.234521, 10.702417, 11.218521, 11.720812, 12.213521, 12.685083, 13.176479, 13.646896, 14.113146, 14.567375, 15.006125, 15.457292, 15.934437, 16.436875, 16.939875, 17.416104, 17.890250, 18.334771, 18.812792, 19.290646, 19.752417, 20.232583, 20.726604, 21.229500, 21.766042, 22.327583, 22.887604, 23.472896, 24.032917, 24.564417]
        let peaks: [Double] = [0.344444, 0.950000, 1.530556, 2.077778, 2.622222, 3.136111, 3.655556, 4.166667, 4.694444, 5.219444, 5.733333, 6.250000, 6.752778, 7.244444, 7.716667, 8.208333, 8.680556, 9.144444, 9.600000, 10.038889, 10.488889, 10.966667, 11.469444, 11.972222, 12.450000, 12.922222, 13.366667, 13.844444, 14.322222, 14.783333, 15.263889, 15.758333, 16.261111, 16.797222, 17.358333, 17.919444, 18.505556, 19.063889, 19.597222, 19.877778]
        let runs: [BeatDelayRuns.Run]? = BeatDelayRuns.runs(beats: beats, peaks: peaks.filter { (peak: Double) -> Bool in peak > 5 && peak < 19 })
        XCTAssertEqual(runs?.map { (run: BeatDelayRuns.Run) -> Int in run.peaks }, [1, 27])
        XCTAssertEqual(runs?.first?.delay ?? 0, 5.015, accuracy: 0.001)
        XCTAssertEqual(runs?.last?.delay ?? 0, 4.969, accuracy: 0.002)
    }
}
