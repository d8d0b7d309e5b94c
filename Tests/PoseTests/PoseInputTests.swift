import BodySignals
import Foundation
import Inputs
import Pose
import Realtime
import TestSupport
import XCTest

/// The live input's two threads on a clock of their own (CLOCK_MONOTONIC at 48 kHz, no JACK):
/// a video of a real person whose right fist swings up and down twice a second, read at its own
/// rate, becomes `pose` messages one frame's spacing apart and a right-up hit per swing, each at
/// its frame's capture time plus the delay; the video's end is one dropout. Under
/// ThreadSanitizer too (`make test-tsan`): the capture and pose threads share only the mailbox,
/// the status and the ring.
final class PoseInputTests: XCTestCase {
    /// The engine's frames as CLOCK_MONOTONIC's seconds × 48,000.
    private struct MonotonicFrames: FrameClock {
        var sampleRate: Int { 48_000 }
        func currentFrame() -> Int64 { Int64(MonotonicClock.seconds * 48_000) }
        func frame(forTimetag timetag: UInt64) -> Int64 { currentFrame() }
    }

    func testAVideosFistsReachTheRingAtTheirCaptureTimesPlusTheDelay() throws {
        let folder = try TemporaryFolder("pose-input")
        defer { folder.remove() }
        let video = folder.file("swing.mkv")
        // Turned one way for 0.5 s, the other for 0.5 s, twice: ten frames a second.
        let made = try Subprocess.run(try XCTUnwrap(Subprocess.which("ffmpeg"), "ffmpeg (make debs installs it)"), [
            "-loglevel", "error", "-loop", "1", "-i", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "-t", "2", "-r", "10",
            "-vf", "rotate='if(lt(mod(t,1),0.5),-0.35,0.35)'", "-c:v", "ffv1", "-pix_fmt", "bgr0", video])
        XCTAssertEqual(made.status, 0, made.stderr)
        var settings = PoseInput.Configuration(models: try PoseModelFiles.find())
        var regions = RegionModel()
        regions.thresholds[.up] = RegionModel.Threshold(enter: 1.2, exit: 1.0)
        (settings.source, settings.regionNames, settings.regionModel, settings.delay) = (.file(video), ["right-up"], regions, 0.4)
        let input = try PoseInput(configuration: settings, clock: LabClock(frames: MonotonicFrames()), log: { _ in })
        input.start()
        let deadline = Date().addingTimeInterval(10)
        while input.status.dropouts == 0 && Date() < deadline { usleep(50_000) }
        usleep(300_000)
        input.stop()
        var poses: [Int64] = [], hits: [Int64] = []
        while let message = input.ring.consumer.pop() {
            if case .pose = message.event { poses.append(message.frame) }
            if case .regionHit(let region, _) = message.event, region == 0 { hits.append(message.frame) }
        }
        XCTAssertEqual(input.status.dropouts, 1, "the video's end: \(input.status)")
        XCTAssertEqual(input.status.late, 0, "\(input.status)")
        // A slow build (ThreadSanitizer's: 140 ms a frame) drops frames: counted, never queued.
        XCTAssertEqual(poses.count + input.status.dropped, 20, "every frame's fists, or counted as dropped: \(input.status)")
        guard let first = poses.first else { return XCTFail("no pose reached the ring") }
        // Each at its own frame's capture plus the delay: the video's frames 0.1 s apart.
        let frames = poses.map { Double($0 - first) / 4_800 }
        for (index, frame) in frames.enumerated() {
            XCTAssertEqual(frame, frame.rounded(), accuracy: 0.01, "pose \(index) off the video's frames: \(poses)")
        }
        // ffmpeg's +20° is the fist up (its angle turns clockwise): one hit each second, within
        // that swing's frames (tracking may take a frame or two to follow the turn), at a frame's own time.
        XCTAssertEqual(hits.count, 2, "one hit a swing: \(hits)")
        XCTAssertTrue(hits.allSatisfy(poses.contains), "each hit at a frame's capture plus the delay: \(hits) \(poses)")
        let swings = hits.map { Int((Double($0 - first) / 4_800).rounded()) }
        XCTAssertTrue(swings.count == 2 && (5..<10).contains(swings[0]) && (15..<20).contains(swings[1]), "in the swings up: frames \(swings)")
    }
}
