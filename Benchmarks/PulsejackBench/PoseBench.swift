import BodySignals
import Foundation
import Inputs
import Pose
import Realtime
import TestSupport

/// Row 18, camera pose: BlazePose through LiteRT on one inference thread. A 25 fps video of a
/// real person (messi5.jpg swinging 20° either way twice a second, FFV1) tracked frame by frame:
/// capture → landmarks and what one core sustains; then played live through `PoseInput` at its own
/// rate for 10 s: the CPU share, frames dropped and hits later than `--pose-delay`.
enum PoseBench {
    /// The engine's frames as CLOCK_MONOTONIC's seconds × 48,000 (no JACK).
    private struct MonotonicFrames: FrameClock {
        var sampleRate: Int { 48_000 }
        func currentFrame() -> Int64 { Int64(MonotonicClock.seconds * 48_000) }
        func frame(forTimetag timetag: UInt64) -> Int64 { currentFrame() }
    }

    static func video(seconds: Int) throws -> String {
        let path = BenchFixtures.folder.appendingPathComponent("swing-\(seconds).mkv").path
        let made = try Subprocess.run(Subprocess.which("ffmpeg") ?? "/usr/bin/ffmpeg", [
            "-loglevel", "error", "-y", "-loop", "1", "-i", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "-t", "\(seconds)", "-r", "25",
            "-vf", "rotate='if(lt(mod(t,0.5),0.25),-0.35,0.35)'", "-c:v", "ffv1", "-pix_fmt", "bgr0", path])
        guard made.status == 0 else { throw PoseError("ffmpeg: \(made.stderr)") }
        return path
    }

    /// Each frame's tracking time (read by the tracker as live, smoothing on), and each frame's
    /// with the detector every frame (`--stills`), in seconds.
    static func inference(_ path: String) throws -> (tracked: [Double], detected: [Double]) {
        var results: [[Double]] = []
        for tracks in [true, false] {
            let source = try VideoSource(.file(path)), tracker = try PoseTracker(models: .find(), tracks: tracks, smooths: tracks)
            var times: [Double] = []
            while let frame = try source.next() {
                let began = MonotonicClock.seconds
                _ = try tracker.estimate(frame)
                times.append(MonotonicClock.seconds - began)
            }
            results.append(times)
        }
        return (results[0], results[1])
    }

    /// The live input on a 25 fps video for `seconds`: its status, and the process's CPU seconds
    /// per second meanwhile (both cores: up to 2).
    static func live(_ path: String, seconds: Double) throws -> (status: PoseStatus, cpu: Double) {
        var settings = PoseInput.Configuration(models: try PoseModelFiles.find())
        (settings.source, settings.regionNames) = (.file(path), ["right-up"])
        let input = try PoseInput(configuration: settings, clock: LabClock(frames: MonotonicFrames()), log: { _ in })
        let (before, began) = (cpuSeconds(), MonotonicClock.seconds)
        input.start()
        while input.status.dropouts == 0 && MonotonicClock.seconds - began < seconds + 5 { usleep(100_000) }
        let (after, ended) = (cpuSeconds(), MonotonicClock.seconds)
        input.stop()
        return (input.status, (after - before) / (ended - began))
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func run(runs: Int) throws -> [BenchRow] {
        let path = try video(seconds: 10)
        let (tracked, detected) = try inference(path)
        let (status, cpu) = try live(path, seconds: 10)
        let track = Statistics(tracked), detect = Statistics(detected)
        let ms = { (value: Double) in String(format: "%.1f", value * 1000) }
        let command = ".build/release/pulsejack-bench --only pose"
        let perSecond = Double(tracked.count) / tracked.reduce(0, +)
        let periodMs = 256.0 / 48.0
        return [
            BenchRow(row: "18. Camera pose", measure: "a frame → its 33 landmarks (BlazePose full through LiteRT, one inference thread; a 25 fps 548×342 video, \(tracked.count) frames, the body turning 40° every 0.25 s): tracking from the last frame / the detector every frame",
                     pulsejack: "median \(ms(track.median)) ms, p99 \(ms(track.percentile(99))) ms / median \(ms(detect.median)) ms, p99 \(ms(detect.percentile(99))) ms; \(String(format: "%.0f", perSecond)) frames a second on one core (goal ≥ 15)",
                     reference: "MediaPipe's own Python (the same models, XNNPACK): about 19 ms (detector) and 32 ms (landmarks) a frame here (field notes)",
                     command: command),
            BenchRow(row: "18. Camera pose", measure: "live: that video at its own rate through the input's two threads for 10 s: frames read a second, dropped, capture → landmarks (the last second's median / largest), the whole process's CPU (of 2 cores)",
                     pulsejack: String(format: "%.1f frames/s, %d dropped, %@ / %@ ms, CPU %.0f %% of one core", status.framesPerSecond, status.dropped,
                                       String(format: "%.1f", status.latencyMedian), String(format: "%.1f", status.latencyMax), cpu * 100),
                     reference: "a pose → OSC bridge runs the same models in a Python process of its own, and adds its OSC hop",
                     command: command),
            BenchRow(row: "18. Camera pose", measure: "capture → drum heard at the default --pose-delay (a hit at its frame's capture plus the delay, to the sample: PoseLiveTests) and a 256-frame period; hits later than the delay in the live run",
                     pulsejack: String(format: "%.1f ms (50 ms + one period, %.1f ms; goal < 60); %d late", 50 + periodMs, periodMs, status.late),
                     reference: "an OSC pose bridge: its inference plus the network hop, jittered; no fixed latency",
                     command: command),
        ]
    }
}
