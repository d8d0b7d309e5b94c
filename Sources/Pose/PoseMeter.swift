import Realtime

/// The pose thread's figures over the last second: frames a second and the capture → landmarks
/// latency (median and largest).
struct PoseMeter {
    private var latencies: [Double] = []
    private var windowStart = MonotonicClock.seconds
    private var reported = (median: 0.0, max: 0.0, perSecond: 0.0)
    private var frames = 0

    mutating func frame(latency: Double) {
        latencies.append(latency * 1000)
        frames += 1
        let now = MonotonicClock.seconds
        guard now - windowStart >= 1 else { return }
        let sorted = latencies.sorted()
        reported = (sorted[sorted.count / 2], sorted.last ?? 0, Double(latencies.count) / (now - windowStart))
        latencies.removeAll(keepingCapacity: true)
        windowStart = now
    }

    func report(into status: inout PoseStatus) {
        status.frames = frames
        (status.latencyMedian, status.latencyMax, status.framesPerSecond) = reported
    }
}
