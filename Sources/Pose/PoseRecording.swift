import BodySignals
import Realtime

/// A video's pose as a render's messages (`render --pose video:FILE`): every frame read, tracked
/// and smoothed as live, on the file's own time stamps (a frame at t seconds is frame t × rate,
/// plus the delay), so a video re-renders identically.
public enum PoseRecording {
    public static func messages(file: String, models: PoseModelFiles, threads: Int = 1, regionNames: [String], regionModel: RegionModel,
                                sampleRate: Int, delay: Double) throws(PoseError) -> (messages: [ControlMessage], endFrame: Int64) {
        let video = try VideoSource(.file(file))
        let tracker = try PoseTracker(models: models, threads: threads)
        var making = PoseMessages(regionNames: regionNames, regionModel: regionModel)
        let delayFrames = Int64((delay * Double(sampleRate)).rounded())
        var messages: [ControlMessage] = [], endFrame: Int64 = 0
        while let frame = try video.next() {
            guard let stamp = Int64(checkedRounding: frame.time * Double(sampleRate)) else { continue }
            let at = stamp + delayFrames
            endFrame = max(endFrame, at)
            let estimate = try tracker.estimate(frame)
            guard let hands = estimate.landmarks.flatMap({ PoseHands($0, width: frame.width, height: frame.height) }) else { continue }
            messages += making.messages(hands, at: at, playedAt: at).messages
        }
        return (messages, endFrame)
    }
}
