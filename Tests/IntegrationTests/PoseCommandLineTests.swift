import Foundation
import TestSupport
import XCTest

/// Camera pose's bad input, each one clear line naming what is wrong, before JACK is touched:
/// no camera, a video that cannot be opened or decoded, a model file that is not a model, no
/// LiteRT or no models (EX_UNAVAILABLE, as no liblsl), a camera where a render reads a file.
final class PoseCommandLineTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try Subprocess.requirePulsejack()
        folder = try TemporaryFolder("pose-input").url
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private func pulsejack(_ arguments: [String], _ environment: [String: String] = [:]) throws -> Subprocess {
        // No server by that name: a check that reached JACK would say so instead.
        try Subprocess.run(Subprocess.pulsejack, arguments, environment: environment.merging(["JACK_DEFAULT_SERVER": "pulsejack-none"]) { $1 },
                           in: folder, timeout: 60)
    }

    /// One line on standard error, holding each of `words`; the exit status.
    private func assertOneLine(_ run: Subprocess, status: Int32, saying words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, status, run.stderr, file: file, line: line)
        // A usage error's line is followed by argument-parser's pointer to --help.
        let lines = run.stderr.split(separator: "\n").filter { !$0.isEmpty && !$0.hasPrefix("Usage:") && !$0.hasPrefix("  See '") }
        XCTAssertEqual(lines.count, 1, run.stderr, file: file, line: line)
        for word in words { XCTAssertTrue(run.stderr.contains(word), "'\(word)' missing: \(run.stderr)", file: file, line: line) }
        XCTAssertFalse(run.stderr.contains("JACK server"), "JACK was touched: \(run.stderr)", file: file, line: line)
    }

    func testAVideoThatCannotBeOpenedOrDecodedIsOneLine() throws {
        let text = folder.appendingPathComponent("notes.mp4")
        try "not a video\n".write(to: text, atomically: true, encoding: .utf8)
        assertOneLine(try pulsejack(["pose", "--video", "/nonexistent/take.mp4"]), status: 1, saying: ["/nonexistent/take.mp4", "No such file"])
        assertOneLine(try pulsejack(["pose", "--video", text.path]), status: 1, saying: [text.path, "cannot be opened"])
        assertOneLine(try pulsejack(["run", "--no-osc", "--pose", "video:" + text.path]), status: 1, saying: ["--pose", text.path])
        assertOneLine(try pulsejack(["pose", "--camera", "/dev/video-none"]), status: 1, saying: ["/dev/video-none", "camera cannot be opened"])
        assertOneLine(try pulsejack(["run", "--no-osc", "--pose", "camera:/dev/video-none"]), status: 1, saying: ["--pose", "/dev/video-none"])
    }

    /// A frame stamped beyond a day (a file's own number) is refused in one line, never trapped on
    /// in a conversion to a frame, by the tool and by a render.
    func testAFrameStampedBeyondADayIsOneLine() throws {
        let near = folder.appendingPathComponent("near.mkv").path, far = folder.appendingPathComponent("far.mkv").path
        let ffmpeg = try XCTUnwrap(Subprocess.which("ffmpeg"), "ffmpeg (make debs installs it)")
        for arguments in [["-loop", "1", "-i", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "-t", "0.3", "-r", "10", "-c:v", "ffv1", near],
                          ["-i", near, "-output_ts_offset", "100000", "-c", "copy", far]] {
            let made = try Subprocess.run(ffmpeg, ["-loglevel", "error", "-y"] + arguments)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        assertOneLine(try pulsejack(["pose", "--video", far]), status: 1, saying: [far, "beyond 24 hours"])
        assertOneLine(try pulsejack(["render", "--pose", "video:" + far, "--out", "x.wav"]), status: 1, saying: [far, "beyond 24 hours"])
    }

    func testAPresetsPoseSourceIsNamedByItsLine() throws {
        let preset = folder.appendingPathComponent("preset.yaml")
        try "voices:\n  - {name: hit, kind: click, on_beat: false}\nregions: {right-up: hit}\nsensors:\n  pose: video:gone.mkv\n"
            .write(to: preset, atomically: true, encoding: .utf8)
        assertOneLine(try pulsejack(["run", "--no-osc", "--preset", preset.path]), status: 1,
                      saying: [preset.path + ":5: sensors.pose", folder.appendingPathComponent("gone.mkv").path])
        assertOneLine(try pulsejack(["run", "--no-osc", "--pose", "webcam"]), status: 64, saying: ["--pose", "camera, camera:/dev/videoN or video:FILE"])
        assertOneLine(try pulsejack(["render", "--pose", "camera", "--out", "x.wav"]), status: 64, saying: ["a render reads a video file"])
    }

    func testAModelThatIsNotOneOrNoLiteRTIsOneLine() throws {
        let models = folder.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        for name in ["pose_detection.tflite", "pose_landmark_full.tflite"] {
            try "not a model".write(to: models.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let still = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        assertOneLine(try pulsejack(["pose", "--video", still], ["PULSEJACK_POSE_MODELS": models.path]), status: 1,
                      saying: [models.appendingPathComponent("pose_detection.tflite").path, "not a model LiteRT can read"])
        assertOneLine(try pulsejack(["pose", "--video", still], ["PULSEJACK_POSE_MODELS": folder.appendingPathComponent("none").path]), status: 69,
                      saying: ["BlazePose's models", "PULSEJACK_POSE_MODELS"])
        assertOneLine(try pulsejack(["pose", "--video", still], ["PULSEJACK_LITERT": "/nonexistent/libLiteRt.so"]), status: 69,
                      saying: ["LiteRT is not installed", "PULSEJACK_LITERT=/nonexistent/libLiteRt.so: no such file"])
        assertOneLine(try pulsejack(["run", "--no-osc", "--pose", "camera"], ["PULSEJACK_LITERT": still]), status: 69,
                      saying: ["--pose", "LiteRT is not installed", still])
    }
}
