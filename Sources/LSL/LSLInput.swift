import Atomics
import Foundation
import Inputs
import Realtime

/// LSL streams as bodies: the lab's devices (muse-lsl's EEG and PPG, Polar's ECG, OpenBCI …)
/// read from the bus on one thread (`pj-lsl-in`), each through its own inlet, and turned into the
/// control messages a Bluetooth sensor or OSC makes, in this input's ring:
///
/// - a heart (`--heart lsl:NAME`): an ECG at the stream's own rate through the R-peak detector,
///   a PPG through the pulse-wave detector, an RR/IBI stream's intervals — beats and intervals;
/// - an EEG (`--eeg lsl:NAME`): band powers from its channels (AUX channels left out) at its rate,
///   and the mood;
/// - markers (`--lsl-markers NAME`): `voice/NAME` fires the voice and `region/NAME` hits the
///   region at the frame of the marker's time stamp;
/// - any numeric channel a modulation reads (`lsl.STREAM.CHANNEL`): that signal's value.
///
/// Time stamps are the outlet's clock plus the inlet's `time_correction`, so a stream from another
/// machine lands right, and are placed on frames by `LabClock`. A stream that disappears is a
/// dropout (counted; the heart's own dropout rule follows from its silence) and is resolved
/// again until it comes back. Malformed samples are counted, never fatal.
public final class LSLInput: InputSource, Sendable {
    public struct Configuration: Sendable {
        public var streams: [LSLStreamQuery] = []
        /// The preset's signal names in their index order (those named `lsl.…` are read here).
        public var signals: [String] = []
        public var voices: [String] = []
        public var regions: [String] = []
        /// Seconds from a heart's beat (its R-peak, upstroke or interval's end) to its sound (`--ecg-delay`).
        public var beatDelay = 1.0
        /// Seconds from a marker's or a signal sample's time stamp to its frame (`--lsl-delay`):
        /// their spacing is kept while the network's jitter stays under it.
        public var markerDelay = 0.05
        public init() {}
    }

    public let configuration: Configuration
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 8192)
    public let dropped = ManagedAtomic<Int>(0)
    private let clock: LabClock
    private let hearts: HeartWatch?
    private let moods: MoodWatch?
    private let log: @Sendable (String) -> Void
    private let say: @Sendable (String) -> Void
    private let reports = WarningLimiter()
    private let running = ManagedAtomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let stopBell = Doorbell()
    private let statuses: LockedBox<[LSLStreamStatus]>

    /// Control thread. The streams the run reads: `configuration.streams`, and one for each
    /// stream the `lsl.` signals name.
    public init(configuration: Configuration, clock: LabClock, hearts: HeartWatch?, moods: MoodWatch?,
                log: @escaping @Sendable (String) -> Void, say: @escaping @Sendable (String) -> Void) throws(LSLError) {
        try LSLLibrary.load()
        var configuration = configuration
        for stream in Self.signalStreams(configuration.signals) where !configuration.streams.contains(where: { $0.role == .signals && $0.match[0].1 == stream }) {
            configuration.streams.append(LSLStreamQuery(role: .signals, name: stream))
        }
        self.configuration = configuration
        self.clock = clock
        self.hearts = hearts
        self.moods = moods
        self.log = log
        self.say = say
        statuses = LockedBox(configuration.streams.map { query in
            var status = LSLStreamStatus(direction: "in", name: query.description, type: "", rate: 0)
            (status.role, status.state) = (query.role.rawValue, "resolving")
            return status
        })
    }

    /// The streams `lsl.STREAM.CHANNEL` signals name, in order.
    static func signalStreams(_ signals: [String]) -> [String] {
        var streams: [String] = []
        for signal in signals where signal.hasPrefix("lsl.") {
            let parts = signal.split(separator: ".")
            if parts.count == 3, !streams.contains(String(parts[1])) { streams.append(String(parts[1])) }
        }
        return streams
    }

    deinit { stop() }

    public var status: [LSLStreamStatus] { statuses.withLockedValue { $0 } }

    public func start() {
        guard !configuration.streams.isEmpty, !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            ThreadName.set("pj-lsl-in")
            run()
            finished.signal()
        }
        thread.start()
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        stopBell.ring()
        finished.wait()
    }

    public func statusValues(performers: [String]) -> [(String, StatusValue)] {
        status.enumerated().flatMap { index, stream in stream.fields.map { ("lsl_in_\(index)" + $0.0, $0.1) } }
    }

    // MARK: The input's thread

    private func run() {
        let links = configuration.streams.enumerated().map { index, query in
            LSLInletLink(index: index, query: query, configuration: configuration, engineRate: clock.sampleRate)
        }
        while running.load(ordering: .acquiring) {
            let now = MonotonicClock.seconds
            for link in links where running.load(ordering: .relaxed) {
                if !link.isOpen {
                    guard now >= link.retryAt else { continue }
                    do {
                        if try link.open(stillRunning: { running.load(ordering: .relaxed) }) {
                            say("pulsejack: LSL stream \(link.info?.name ?? "") (\(link.info?.type ?? ""), \(Self.rateText(link.info?.rate ?? 0))) read as \(link.query.role.rawValue)"
                                + (link.query.performer > 0 ? " of performer \(link.query.performer + 1)" : ""))
                            if let problem = link.openingProblem { note(link, problem) }
                        } else {
                            link.retryAt = MonotonicClock.seconds + 0.25
                        }
                    } catch {
                        note(link, error.description)
                        link.retryAt = MonotonicClock.seconds + 3
                    }
                    update(link)
                    continue
                }
                pull(link)
            }
            stopBell.wait(seconds: links.contains { !$0.isOpen } ? 0.05 : 0.004)
        }
        for link in links { link.finish() }
    }

    static func rateText(_ rate: Double) -> String { rate > 0 ? "\(rate.formatted(.number.precision(.significantDigits(1...6)))) Hz" : "irregular" }

    private func pull(_ link: LSLInletLink) {
        let outcome = link.pull(clock: clock)
        switch outcome {
        case .samples(let messages, let beats, let bands):
            push(messages)
            if beats > 0 { hearts?.heard(performer: link.query.performer) }
            for (band, value) in bands { moods?.observe(band, value, performer: link.query.performer) }
            if !messages.isEmpty || link.statusChanged { update(link) }
        case .lost:
            link.close()
            link.dropouts += 1
            link.retryAt = MonotonicClock.seconds + 0.5
            if let line = reports.admit("LSL: stream \(link.info?.name ?? link.query.description) went away (dropout \(link.dropouts)); resolving it again", kind: "lsl \(link.index)") {
                log(line)
            }
            update(link)
        case .nothing:
            if link.statusChanged { update(link) }
        }
        if let problem = link.takeProblem() { note(link, problem) }
    }

    /// A stream's problem in the status, and said once: a stream refused again at each retry
    /// for the same reason is not said again.
    private func note(_ link: LSLInletLink, _ problem: String) {
        let repeated = link.problem == problem
        link.problem = problem
        if !repeated, let line = reports.admit("LSL: \(link.query.description): \(problem)", kind: "lsl \(link.index)") { log(line) }
        update(link)
    }

    private func push(_ messages: [ControlMessage]) {
        for message in messages where !ring.producer.push(message) { dropped.wrappingIncrement(ordering: .relaxed) }
    }

    private func update(_ link: LSLInletLink) {
        link.statusChanged = false
        let status = link.status
        statuses.withLockedValue { $0[link.index] = status }
    }
}
