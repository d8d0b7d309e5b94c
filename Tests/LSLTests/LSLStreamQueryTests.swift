import Foundation
import Inputs
import Realtime
import XCTest
@testable import LSL

/// How a stream is named, and the frames ↔ LSL time arithmetic.
final class LSLStreamQueryTests: XCTestCase {
    func testAStreamIsNamedByNameOrByItsProperties() throws {
        let muse = try LSLStreamQuery(parsing: "lsl:Muse", role: .eeg)
        XCTAssertEqual(muse.predicate, "name='Muse'")
        XCTAssertEqual(muse.description, "lsl:Muse")
        let ppg = try LSLStreamQuery(parsing: "lsl:name=Muse, type=PPG, channel=PPG2", role: .heart, performer: 1)
        XCTAssertEqual(ppg.predicate, "name='Muse' and type='PPG'")
        XCTAssertEqual(ppg.channel, "PPG2")
        XCTAssertEqual(ppg.performer, 1)
        XCTAssertEqual(try LSLStreamQuery(parsing: "LSL:type=ECG", role: .heart).predicate, "type='ECG'")
        for bad in ["lsl:", "lsl:colour=red", "lsl:name=", "lsl:channel=2", "lsl:name=it's", "ble:Polar"] {
            XCTAssertThrowsError(try LSLStreamQuery(parsing: bad, role: .heart), bad)
        }
    }

    /// JACK's frames against LSL's clock: `ppm` fast, every third reading a period behind (a
    /// cycle began between its two halves), readings to the frame.
    private final class Frames: FrameClock, @unchecked Sendable {
        let sampleRate = 48_000
        var seconds = 100.0
        var startSeconds = 100.0
        var ppm = 0.0
        var reads = 0
        /// Frames the timeline lost to xruns: time passed that no frame counted.
        var lost = 0.0
        /// The next reading is this far off (frames), once: one taken as an xrun struck.
        var wildOnce = 0.0
        func currentFrame() -> Int64 {
            reads += 1
            defer { wildOnce = 0 }
            return Int64((seconds - startSeconds) * 48_000 * (1 + ppm / 1e6) - lost + wildOnce) - (reads % 3 == 0 ? 256 : 0)
        }
        func frame(forTimetag timetag: UInt64) -> Int64 { 0 }
        func frameAndTime() -> (frame: Int64, seconds: Double) { (currentFrame(), seconds) }
        /// The true LSL time of `frame`.
        func truth(_ frame: Double) -> Double { startSeconds + (frame + lost) / (48_000 * (1 + ppm / 1e6)) }
    }

    /// Frames and LSL times map exactly both ways between the loop's updates; a reading a period
    /// off does not move the line; a jump beyond the tolerance (the server restarted) sets it again.
    func testFramesMapToLSLTimeExactlyAndARestartSetsTheLineAgain() {
        let frames = Frames()
        let clock = LabClock(frames: frames)
        XCTAssertEqual(clock.seconds(atFrame: 48_000), 101, accuracy: 1e-9)
        XCTAssertEqual(clock.anchors, 1)
        for step in 1...60 {
            frames.seconds = 100 + Double(step) * 0.5
            XCTAssertEqual(clock.seconds(atFrame: 48_000 * 31) - clock.seconds(atFrame: 48_000 * 30), 1, accuracy: 1e-9)
            XCTAssertEqual(clock.frame(atSeconds: frames.seconds + 0.25), (frames.seconds + 0.25 - 100) * 48_000, accuracy: 1e-6)
        }
        XCTAssertEqual(clock.anchors, 1)
        frames.startSeconds = 129  // the frame count started again a second ago
        XCTAssertEqual(clock.seconds(atFrame: 48_000), 130, accuracy: 1e-9)
        XCTAssertEqual(clock.anchors, 2)
    }

    /// Frames 60 ppm fast (jackd2's RAW clock against NTP's): the loop follows, so a frame's LSL
    /// time stays within 50 µs of the truth after its first minute (a fixed rate strays 1.2 ms
    /// in 20 s), and spacing between updates is the line's own.
    func testTheLoopFollowsFramesThatRunFast() {
        let frames = Frames()
        frames.ppm = 60
        let clock = LabClock(frames: frames)
        var worst = 0.0
        for step in 1...1200 {
            frames.seconds = 100 + Double(step) * 0.5
            let frame = Double(frames.currentFrame())
            let error = abs(clock.seconds(atFrame: Int64(frame)) - frames.truth(Double(Int64(frame))))
            if step > 120 { worst = max(worst, error) }
        }
        XCTAssertLessThan(worst, 50e-6)
        XCTAssertEqual(clock.anchors, 1)
    }

    /// An xrun costs the timeline 9 ms (jackd2's dummy driver counts no frames for the time it
    /// was late): the line is slewed onto the new timeline, never set again, each half-second
    /// update moving a frame's time by at most a twentieth of the step (0.45 ms), and within
    /// 50 µs of the truth half a minute on. One reading taken mid-xrun, a second off, moves nothing.
    func testAnXrunsStepIsSlewedAndAWildReadingIgnored() {
        let frames = Frames()
        let clock = LabClock(frames: frames)
        for step in 1...20 { frames.seconds = 100 + Double(step) * 0.5; _ = clock.seconds(atFrame: 0) }
        frames.wildOnce = 48_000
        XCTAssertEqual(clock.seconds(atFrame: 48_000), 101, accuracy: 1e-9, "a wild reading moves nothing")
        frames.lost = 432
        var previous = clock.seconds(atFrame: 48_000), largest = 0.0
        for step in 21...100 {
            frames.seconds = 100 + Double(step) * 0.5
            let now = clock.seconds(atFrame: 48_000)
            largest = max(largest, abs(now - previous))
            previous = now
            if step >= 80 { XCTAssertEqual(now, frames.truth(48_000), accuracy: 50e-6, "\(step / 2 - 10) s after the xrun") }
        }
        XCTAssertLessThanOrEqual(largest, 432.0 / 20 / 48_000 + 1e-9, "the most an update moved a frame's time")
        XCTAssertGreaterThan(largest, 0.0002, "the step is slewed, not ignored")
        XCTAssertEqual(clock.anchors, 1)
    }

    /// A camera's frames 0.1 s apart, each placed 50 ms after its capture, while the line slews
    /// onto a 50 ms xrun's step: each update's move is spread over the next half second, so
    /// consecutive frames land 4800 frames apart to a hundredth of the step (24 frames, 0.5 ms;
    /// moving the anchor at each update put two of them a twentieth of it, 120 frames, closer),
    /// and the line still reaches the new timeline.
    func testEventsCloseTogetherKeepTheirSpacingWhileAStepIsSlewed() {
        let frames = Frames()
        let clock = LabClock(frames: frames)
        for step in 1...20 { frames.seconds = 100 + Double(step) * 0.5; _ = clock.seconds(atFrame: 0) }
        frames.lost = 2_400
        var placed: [Double] = []
        for tick in 1...500 {
            frames.seconds = 110 + Double(tick) * 0.1
            placed.append(clock.frame(atSeconds: frames.seconds - 0.05))
        }
        let spacings = zip(placed, placed.dropFirst()).map { $1 - $0 }
        let worst = spacings.map { abs($0 - 4_800) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, 2_400.0 / 100 + 1e-6, "frames 0.1 s apart: \(spacings.filter { abs($0 - 4_800) > 1 })")
        XCTAssertGreaterThan(worst, 2_400.0 / 200, "the step is slewed while the frames come")
        XCTAssertEqual(clock.frame(atSeconds: frames.seconds), (frames.seconds - 100) * 48_000 - frames.lost, accuracy: 2.4,
                       "the line reached the new timeline (to 50 µs)")
        XCTAssertEqual(clock.anchors, 1)
    }

    /// Frames whose readings on one thread wait until the test lets them go.
    private final class HeldFrames: FrameClock, @unchecked Sendable {
        let sampleRate = 48_000
        let held = LockedBox<pthread_t?>(nil)
        let reached = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let seconds = LockedBox(100.0)
        func currentFrame() -> Int64 { Int64((seconds.withLockedValue { $0 } - 100) * 48_000) }
        func frame(forTimetag timetag: UInt64) -> Int64 { 0 }
        func frameAndTime() -> (frame: Int64, seconds: Double) {
            if let thread = held.withLockedValue({ $0 }), pthread_equal(thread, pthread_self()) != 0 {
                held.withLockedValue { $0 = nil }
                reached.signal()
                release.wait()
            }
            return (currentFrame(), seconds.withLockedValue { $0 })
        }
    }

    /// A caller whose update is still reading the frames (the loop's readings sleep between
    /// them) holds no lock: another caller gets its answer meanwhile, from the line as it was.
    func testACallerNeverWaitsForAnothersReadings() throws {
        let frames = HeldFrames()
        let clock = LabClock(frames: frames)
        XCTAssertEqual(clock.seconds(atFrame: 48_000), 101, accuracy: 1e-9)
        frames.seconds.withLockedValue { $0 = 100.75 }  // past the update interval: the next call updates
        let updater = Thread {
            frames.held.withLockedValue { $0 = pthread_self() }
            _ = clock.seconds(atFrame: 0)
        }
        updater.start()
        XCTAssertEqual(frames.reached.wait(timeout: .now() + 10), .success, "the updater reached its readings")
        let answered = DispatchSemaphore(value: 0)
        let other = Thread {
            XCTAssertEqual(clock.frame(atSeconds: 101.5), 48_000 * 1.5, accuracy: 1e-6)
            answered.signal()
        }
        other.start()
        let result = answered.wait(timeout: .now() + 10)
        frames.release.signal()
        XCTAssertEqual(result, .success, "the other caller answered while the updater was held")
        XCTAssertEqual(clock.anchors, 1)
    }
}
