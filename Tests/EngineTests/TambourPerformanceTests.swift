import Inputs
import XCTest
@testable import Engine

/// Tambour's performance on its own: regions, the mode cycle, the pattern with its skipped beats.
final class TambourPerformanceTests: XCTestCase {
    /// Regions: 0 and 1 play voices 5 and 6, 2 is the skip region (voice 7), 3 cycles the mode.
    private func performance() -> TambourPerformance {
        TambourPerformance(targets: [.voice(5), .voice(6), .voice(7), .modeCycle], skipRegion: 2,
                           modeVoices: [.recording: 1, .playing: 2])
    }

    func testAPatternRecordsHitsAndSkippedBeatsAndPlaysThemBackInOrder() {
        var tambour = performance()
        guard case .play(voice: 5) = tambour.hit(region: 0) else { return XCTFail("freestyle plays the region's voice") }
        guard case .silent = tambour.hit(region: 2) else { return XCTFail("the skip region is silent outside recording") }
        guard case .enter(.recording) = tambour.hit(region: 3) else { return XCTFail("the mode region cycles to recording") }
        XCTAssertEqual(tambour.enter(.recording), 1, "recording is announced by its voice")
        for region: Int32 in [0, 2, 1, 2] { _ = tambour.hit(region: region) }
        XCTAssertEqual(tambour.recorded, [.region(0), .skippedBeat, .region(1), .skippedBeat])
        guard case .enter(.playing) = tambour.hit(region: 3) else { return XCTFail("then to playing") }
        XCTAssertEqual(tambour.enter(.playing), 2)
        // Two rounds of the pattern, one step a beat: skipped beats stay silent.
        XCTAssertEqual((0..<8).map { _ in tambour.beatPassed() }, [5, nil, 6, nil, 5, nil, 6, nil])
        guard case .enter(.freestyle) = tambour.hit(region: 3) else { return XCTFail("and back to freestyle") }
        XCTAssertNil(tambour.enter(.freestyle), "freestyle has no announcing voice here")
        XCTAssertNil(tambour.beatPassed(), "no playback in freestyle")
    }

    func testAnUnknownRegionIsInvalidAndThePatternStopsAtItsCapacity() {
        var tambour = performance()
        guard case .invalid = tambour.hit(region: 4) else { return XCTFail("region 4 does not exist") }
        guard case .invalid = tambour.hit(region: -1) else { return XCTFail("nor does −1") }
        _ = tambour.enter(.recording)
        for _ in 0..<(TambourPerformance.patternCapacity + 10) { _ = tambour.hit(region: 1) }
        XCTAssertEqual(tambour.recorded.count, TambourPerformance.patternCapacity)
    }
}
