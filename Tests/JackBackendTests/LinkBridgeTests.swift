import CLink
import EngineFixtures
import Realtime
import XCTest
@testable import JackBackend

/// The bridge between a Link session and the engine, period by period, on a session of its own
/// that never joins (no network): a follower takes the session's tempo — clamped to the
/// engine's 300 BPM and counted — and its beats, each click on the session's beat grid to the frame.
final class LinkBridgeTests: XCTestCase {
    func testAFollowerTakesTheSessionsTempoClampedAndCountedAndClicksOnItsBeats() throws {
        let session = try LinkSession(bpm: 120, settings: LinkSession.Settings(follows: true))
        let engine = Fixtures.clickEngine(maxFrames: 256) { $0.followsGrid = true }
        let bridge = LinkBridge(session: session)
        let state = try XCTUnwrap(pj_link_state_create())
        defer { pj_link_state_destroy(state) }
        // The session's tempo set on the thread that runs the periods, before a period. (Set from
        // another thread, two commits in a row could reach this one as 400, 133, 400, 133: Link's
        // own thread hands each app commit on later, and handing on the first rewrote the tempo
        // the second had set — a clamp counted twice, seen once. Its audio-thread commits are
        // taken in order, and seen at once.)
        var pending: Double?
        func period(_ frame: Int64) {
            if let bpm = pending {
                pj_link_capture_audio(session.link, state)
                pj_link_set_tempo(state, bpm, session.micros)
                pj_link_commit_audio(session.link, state)
                pending = nil
            }
            bridge.period(engine, cycleMicros: micros(frame), rolling: nil)
        }
        // The period's first frame on Link's clock: the session's own clock now, then 256 frames a period.
        let origin = session.micros
        func micros(_ frame: Int64) -> Int64 { origin + frame * 1_000_000 / 48_000 }
        pending = 400
        _ = Fixtures.run(engine, sizes: [256], periods: 1, beforePeriod: period)
        XCTAssertEqual(engine.gridClock.bpm, 300, "400 BPM clamped to the engine's 300")
        XCTAssertEqual(session.readings.clampedTempos.load(ordering: .relaxed), 1)
        pending = 133
        let output = Fixtures.run(engine, sizes: [256], periods: 48_000 * 4 / 256, beforePeriod: period)
        XCTAssertEqual(engine.gridClock.bpm, 133, accuracy: 1e-9)
        XCTAssertEqual(session.readings.clampedTempos.load(ordering: .relaxed), 1, "an accepted tempo is not counted")
        // Every click (from the second period on) at the frame where the session's beat grid
        // reaches an integer beat, worked out from the session's own timeAtBeat.
        pj_link_capture_audio(session.link, state)
        let clicks = output.left.indices.filter { $0 >= 256 && output.left[$0] > 0.5 && output.left[$0 - 1] <= 0.5 }.map { $0 + 256 }
        XCTAssertGreaterThanOrEqual(clicks.count, 7)
        for click in clicks {
            let beat = pj_link_beat_at_time(state, micros(Int64(click)), 4)
            XCTAssertEqual(beat, beat.rounded(), accuracy: 133.0 / 60 / 48_000 * 1.01, "click at frame \(click) is beat \(beat)")
        }
    }
}
