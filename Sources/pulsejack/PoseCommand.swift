import ArgumentParser
import Foundation
import Pose
import Runs
import Renders

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Print the body pose pulsejack sees in a camera or a video, frame by frame: to place a camera, and to check the tracker.",
        discussion: """
            Each frame's time, the 33 BlazePose landmarks (x and y normalized to the picture, from its top left, \
            and their visibility) and the fists as the drum regions read them (each wrist from the hip centre \
            in torso lengths, up and toward the performer's right positive). With --json, one object a frame: \
            {"time": s, "landmarks": [[x, y, visibility] × 33] or null, "hands": [lx, ly, rx, ry] or null}. \
            Needs LiteRT and BlazePose's models (make deps).
            """)

    @Option(help: ArgumentHelp("A V4L2 camera.", valueName: "device")) var camera: String?
    @Option(help: ArgumentHelp("A video file or a still image (anything FFmpeg reads).", valueName: "file")) var video: String?
    @Flag(help: "One JSON object a line.") var json = false
    @Flag(help: "Read each frame on its own: the detector every frame, no tracking, no smoothing (for stills).") var stills = false
    @Option(help: "Inference threads (1…8).") var threads = 1

    func validate() throws {
        guard (camera == nil) != (video == nil) else { throw ValidationError("give one of --camera DEVICE or --video FILE") }
        guard (1...8).contains(threads) else { throw ValidationError("--threads \(threads) is outside 1…8") }
    }

    func run() throws {
        let source: VideoSource, tracker: PoseTracker, models: PoseModelFiles
        do {
            try LiteRTLibrary.load()
            models = try PoseModelFiles.find()
        } catch { throw refusal(OptionProblem("\(error)", unavailable: true)) }
        do {
            tracker = try PoseTracker(models: models, threads: threads, tracks: !stills, smooths: !stills)
            source = try VideoSource(camera.map { .camera($0) } ?? .file(video ?? ""))
        } catch { throw fail(error) }
        StandardOutput.lineBuffered()
        do {
            while let frame = try source.next() {
                let report = PoseReport(try tracker.estimate(frame), width: frame.width, height: frame.height)
                print(json ? report.json : report.text)
            }
        } catch { throw fail(error) }
    }
}
