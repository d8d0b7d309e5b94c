import Realtime

/// What a heart-rate strap's notifications mean to the engine. Each notification carries the RR
/// intervals since the last one and no time stamp: the beats they end are consecutive, so their
/// sum is the heart's own timeline, placed on JACK's frames at an offset the arrivals bound. A
/// notification comes after the beat its last interval ends (offset ≤ its delay, arrival minus
/// that beat) and before the next beat (offset > its delay minus the next interval, known from
/// the next notification). A strap notifies on its own period, not on beats, so over a few
/// notifications the bounds close in; the offset is their midpoint.
///
/// - Without prediction, the clock follows the heart: each notification's last RR interval is
///   the tempo from its arrival (a strap that sends no intervals: its BPM).
/// - With prediction (`--predict-beats`), the next beats — last known beat plus the mean of the
///   last three intervals — are explicit beats at their frames, scheduled up to the next
///   notification, so heartbeat voices land on the heart's beat rather than up to a second later.
///
/// Either way, the intervals themselves go along (`.rrIntervals`), for the session log.
/// Deterministic in the arrival frames: the sensor thread's, or a test's.
public struct RRBeatTimeline: Sendable {
    public let sampleRate: Int
    public let predicts: Bool
    /// Beats are scheduled this far past a notification's arrival (seconds): straps notify
    /// about once a second.
    public static let horizon = 1.25
    /// Seconds between notifications that mean one was lost (straps notify each second).
    static let longestGap = 1.6
    /// Notifications whose bounds place the timeline.
    static let boundWindow = 20
    /// Intervals the prediction's step is the mean of (a heart's rate trends; three follow it
    /// and still smooth one odd beat).
    static let intervalWindow = 3

    /// The last beat on the heart's own timeline (seconds since its first notification).
    private var lastBeat: Double?
    /// Upper bounds of the offset (recent delays: arrival minus the beat the last interval
    /// ended) and lower ones (a delay minus the interval after it), in seconds.
    private var uppers: [Double] = [], lowers: [Double] = []
    /// The last notification's delay, until the next interval bounds it from below.
    private var pendingDelay: Double?
    private var intervals: [Double] = []
    private var schedule = BeatSchedule()
    private var lastArrival: Double?

    private mutating func restart() {
        (lastBeat, uppers, lowers, pendingDelay) = (nil, [], [], nil)
    }

    public init(sampleRate: Int, predicts: Bool) {
        self.sampleRate = sampleRate
        self.predicts = predicts
    }

    /// The messages for one notification that arrived at `frame` — its RR intervals (1/1024 s, as
    /// the Heart Rate Service sends them), whether the sensor said it lost contact, its BPM: the
    /// intervals and the tempo take effect at once (the next period: the arrival is already
    /// past), predicted beats at theirs.
    public mutating func messages(rrIntervals: [UInt16], contactLost: Bool, bpm: Int, at frame: Int64, performer: UInt8) -> [ControlMessage] {
        let now = ControlMessage.immediate
        var messages = RRIntervals.chunks(rrIntervals).map { ControlMessage(frame: now, performer: performer, .rrIntervals($0)) }
        // No contact: what it sends is not a heart (the watch sees a dropout).
        guard !contactLost else { return messages }
        let seconds = rrIntervals.map { Double($0) / 1024 }
        let plausible = seconds.allSatisfy(PlausibleHeart.accepts(rr:))
        if !predicts {
            if let last = seconds.last, PlausibleHeart.accepts(rr: last) {
                messages.append(ControlMessage(frame: now, performer: performer, .tempo(bpm: 60 / last)))
            } else if seconds.isEmpty, PlausibleHeart.accepts(bpm: Double(bpm)) {
                messages.append(ControlMessage(frame: now, performer: performer, .tempo(bpm: Double(bpm))))
            }
            return messages
        }
        let arrival = Double(frame) / Double(sampleRate)
        // A strap notifies about once a second, intervals or none: a longer gap lost some, and
        // the timeline starts again (a reconnection too).
        if let lastArrival, arrival - lastArrival > Self.longestGap { restart() }
        lastArrival = arrival
        guard !seconds.isEmpty else { return messages }
        guard plausible else {
            // A bogus interval breaks the chain: the timeline starts again from the next notification.
            restart()
            return messages
        }
        let beat = (lastBeat ?? 0) + seconds.reduce(0, +)
        lastBeat = beat
        intervals = Array((intervals + seconds).suffix(Self.intervalWindow))
        let interval = intervals.reduce(0, +) / Double(intervals.count)
        let delay = arrival - beat
        // Intervals lost with a notification (or a bogus extra one) move the timeline by more than
        // the radio's jitter: it is placed afresh.
        if let upper = uppers.min(), delay - upper > interval + 0.25 || (lowers.max().map { $0 - delay > 0.25 } ?? false) {
            (uppers, lowers, pendingDelay) = ([], [], nil)
        }
        if let pendingDelay { lowers = Array((lowers + [pendingDelay - seconds[0]]).suffix(Self.boundWindow)) }
        pendingDelay = delay
        uppers = Array((uppers + [delay]).suffix(Self.boundWindow))
        let upper = uppers.min()!
        let offset = lowers.max().map { $0 < upper ? ($0 + upper) / 2 : upper } ?? upper
        let lastBeatFrame = Int64(((beat + offset) * Double(sampleRate)).rounded())
        let step = Int64((interval * Double(sampleRate)).rounded())
        let until = frame + Int64(Self.horizon * Double(sampleRate))
        for next in schedule.frames(after: lastBeatFrame, step: step, now: frame, until: until) {
            messages.append(ControlMessage(frame: next, performer: performer, .heartbeat(strength: 1)))
        }
        return messages
    }
}
