import Engine
import Plugins
import Realtime
import XCTest

/// What the hosted plugins are told of the grid: a position where something changed — its
/// first tempo, a tempo change at its frame, a jump of its beats, the transport's stop, frames
/// skipped — and nothing while the phase only moves on at its tempo. Beats against the
/// formula beats = bpm · seconds / 60.
final class PluginTimelineTests: XCTestCase {
    func testAPositionWhereTheGridChangesAndNoneWhileItOnlyMovesOn() throws {
        let timeline = PluginTimeline(sampleRate: 48_000, beatsPerBar: 3)
        var clock = HeartbeatClock(sampleRate: 48_000)
        timeline.beginBlock(clock, at: 0)
        XCTAssertEqual(timeline.time.count, 1, "the first block tells where the grid stands")
        XCTAssertEqual(timeline.time[0].position.speed, 0, "no tempo yet: standing")
        XCTAssertEqual(timeline.time[0].position.beatsPerBar, 3)

        clock.setTempo(bpm: 120, atFrame: 100)
        timeline.check(clock, at: 100)
        XCTAssertEqual(timeline.time.count, 2)
        XCTAssertEqual(timeline.time[1].offset, 100)
        XCTAssertEqual(timeline.time[1].position.speed, 1, "the first tempo starts it")
        XCTAssertEqual(timeline.time[1].position.beat, 0)
        timeline.check(clock, at: 200)
        clock.advance(to: 256)
        timeline.beginBlock(clock, at: 256)
        timeline.check(clock, at: 300)
        XCTAssertEqual(timeline.time.count, 0, "moving on at its tempo is no change")

        // 96 BPM from frame 12 100: 12 000 frames at 120 BPM (half a beat) before it.
        clock.advance(to: 12_032)
        timeline.beginBlock(clock, at: 12_032)
        clock.setTempo(bpm: 96, atFrame: 12_100)
        timeline.check(clock, at: 12_100)
        let change = try XCTUnwrap(timeline.time.count == 1 ? timeline.time[0] : nil)
        XCTAssertEqual(change.offset, 68)
        XCTAssertEqual(change.position.frame, 12_100)
        XCTAssertEqual(change.position.beat, 120.0 * 12_000 / 48_000 / 60, accuracy: 1e-12)
        XCTAssertEqual(change.position.beatsPerMinute, 96)
        XCTAssertEqual(change.position.bar.index, 0)

        // The beats put elsewhere (Link's alignment), the transport stopped, frames skipped.
        clock.advance(to: 12_288)
        timeline.beginBlock(clock, at: 12_288)
        XCTAssertTrue(clock.align(beat: 7.25, atFrame: 12_300))
        timeline.check(clock, at: 12_300)
        XCTAssertEqual(timeline.time[0].position.beat, 7.25, accuracy: 1e-9)
        timeline.transportRolls = false
        timeline.check(clock, at: 12_310)
        XCTAssertEqual(timeline.time[1].position.speed, 0)
        timeline.resync()
        timeline.check(clock, at: 12_320)
        XCTAssertEqual(timeline.time.count, 3, "told again after frames skipped")
        XCTAssertEqual(timeline.time[2].position.beat, 7.25 + 20 * 96.0 / 60 / 48_000, accuracy: 1e-9)
        XCTAssertEqual(timeline.changes, 6)
    }
}
