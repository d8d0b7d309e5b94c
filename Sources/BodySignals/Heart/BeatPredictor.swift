/// Predicts the next heartbeat from the recent ones: the median of the last four intervals,
/// from the last beat. A median ignores a single missed or doubled detection. Sensor thread.
public struct BeatPredictor: Sendable {
    private var beats: [Int64] = []
    public static let history = 5

    public init() {}

    /// Records a beat at `frame`; returns the predicted frame of the next one, once three beats
    /// (two intervals) are known.
    public mutating func observe(beatAt frame: Int64) -> Int64? {
        beats.append(frame)
        if beats.count > Self.history { beats.removeFirst(beats.count - Self.history) }
        guard beats.count >= 3 else { return nil }
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }.sorted()
        let median = intervals.count % 2 == 1 ? intervals[intervals.count / 2]
            : (intervals[intervals.count / 2 - 1] + intervals[intervals.count / 2]) / 2
        return frame + median
    }
}
