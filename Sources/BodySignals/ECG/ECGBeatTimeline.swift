import Realtime

/// What an ECG stream (Polar's H10, an LSL stream) means to the engine: its R-peaks (`ECGBeatDetector`), at the
/// sensor's own times, placed on JACK's frames by `SensorTimeMapping`, become explicit beats:
///
/// - Without prediction, each beat at its R-peak plus a fixed delay (`--ecg-delay`, 1 s by
///   default: an H10 sends about half a second of ECG a notification, and a beat is known
///   120 ms after its R-peak). A beat known later than that plays at once and is counted late.
/// - With prediction (`--predict-beats`), the next beats — the last R-peak plus the mean of the
///   last three intervals — are scheduled up to a second ahead, so a heartbeat voice sounds on
///   the heart's own beat.
///
/// Each R-peak's interval from the last goes along (`.rrIntervals`) for the session log.
/// Deterministic in the arrival frames: the sensor thread's, or a test's.
public struct ECGBeatTimeline: Sendable {
    public let sampleRate: Int
    public let predicts: Bool
    /// Seconds from an R-peak to its beat, without prediction.
    public let delay: Double
    public static let defaultDelay = 1.0
    /// How far past a notification predicted beats are scheduled (notifications come each ~0.56 s).
    static let horizon = 1.0
    /// A gap in the sensor's time stamps (or one going back) that means it started again.
    static let longestGap = 3.0
    static let intervalWindow = 3

    /// The ECG's own rate (Polar's 130 Hz; an LSL stream's declared rate).
    public let signalRate: Double
    private var detector: ECGBeatDetector
    private var mapping = SensorTimeMapping()
    private var epoch: UInt64?
    private var lastTimestamp: UInt64?
    private var lastBeat: Double?
    private var intervals: [Double] = []
    private var schedule = BeatSchedule()
    /// R-peaks found, and beats known too late for their delay.
    public private(set) var beats = 0, late = 0

    public init(sampleRate: Int, predicts: Bool, delay: Double = ECGBeatTimeline.defaultDelay, signalRate: Double) {
        self.sampleRate = sampleRate
        self.predicts = predicts
        self.delay = delay
        self.signalRate = signalRate
        detector = ECGBeatDetector(sampleRate: signalRate)
    }

    private mutating func restart(at timestamp: UInt64) {
        (detector, epoch, lastBeat, intervals) = (ECGBeatDetector(sampleRate: signalRate), timestamp, nil, [])
        mapping.reset()
    }

    /// The messages for one frame of ECG samples that arrived at `frame`, stamped by the sensor's
    /// own clock (`timestamp`: nanoseconds, its last sample's), the samples `signalRate` apart.
    public mutating func messages(timestamp: UInt64, microvolts: [Double], at frame: Int64, performer: UInt8) -> [ControlMessage] {
        if let lastTimestamp, timestamp <= lastTimestamp || Double(timestamp - lastTimestamp) / 1e9 > Self.longestGap {
            restart(at: timestamp)
        }
        let epoch = self.epoch ?? timestamp
        self.epoch = epoch
        lastTimestamp = timestamp
        let rate = Double(sampleRate)
        let last = Double(timestamp - epoch) / 1e9
        let arrival = Double(frame) / rate
        mapping.observe(sample: last, arrival: arrival)
        let count = microvolts.count
        let times = (0..<count).map { last - Double(count - 1 - $0) / signalRate }
        return messages(microvolts: microvolts, times: times, offset: mapping.offset!, at: frame, performer: performer)
    }

    /// The messages for ECG samples at `times` (seconds on a clock `offset` seconds behind JACK's
    /// frame time, `frame / sampleRate`) that arrived at `frame`: an LSL stream's samples come
    /// with times already on the engine's (offset 0). Their rate is the detector's.
    public mutating func messages(microvolts: [Double], times: [Double], offset: Double, at frame: Int64, performer: UInt8) -> [ControlMessage] {
        let rate = Double(sampleRate)
        var messages: [ControlMessage] = []
        for (microvolts, time) in zip(microvolts, times) {
            guard let beat = detector.add(microvolts, at: time) else { continue }
            beats += 1
            if let lastBeat, let interval = RRIntervals.chunks(seconds: [beat - lastBeat]).first {
                messages.append(ControlMessage(frame: ControlMessage.immediate, performer: performer, .rrIntervals(interval)))
                intervals = Array((intervals + [beat - lastBeat]).suffix(Self.intervalWindow))
            }
            lastBeat = beat
            guard !predicts else { continue }
            let at = Int64(((beat + offset + delay) * rate).rounded())
            if at <= frame { late += 1 }
            messages.append(ControlMessage(frame: at <= frame ? ControlMessage.immediate : at, performer: performer, .heartbeat(strength: 1)))
        }
        guard predicts, let lastBeat, !intervals.isEmpty else { return messages }
        let step = intervals.reduce(0, +) / Double(intervals.count)
        guard PlausibleHeart.accepts(rr: step) else { return messages }
        let stepFrames = Int64((step * rate).rounded())
        let until = frame + Int64(Self.horizon * rate)
        let lastBeatFrame = Int64(((lastBeat + offset) * rate).rounded())
        for next in schedule.frames(after: lastBeatFrame, step: stepFrames, now: frame, until: until) {
            messages.append(ControlMessage(frame: next, performer: performer, .heartbeat(strength: 1)))
        }
        return messages
    }
}
