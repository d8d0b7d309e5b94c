import Atomics
import BodySignals
import Foundation
import Inputs
import Realtime

/// Tambour's camera: a performer's body from a camera or a video, in process, into the drum
/// regions. Two threads: `pj-pose-in` reads frames (a camera as they come, a file at its own
/// rate) and stamps each with its capture time on CLOCK_MONOTONIC; `pj-pose` runs BlazePose
/// (`PoseTracker`) on the newest one — frames it has not reached are dropped and counted, never
/// queued. The fists (`PoseHands`) go through the preset's region model at the frame's capture
/// time plus `delay`, so inference's jitter never reaches the sound; a hit whose frame has passed
/// when it is known plays at once and is counted late. The hands also go to the engine as
/// `pose.*` sources at the same frame. A camera that fails is a dropout, opened again each
/// second; a file that ends is one too. Nothing here touches the process thread but the ring.
public final class PoseInput: InputSource, Sendable {
    public struct Configuration: Sendable {
        public var source: VideoSource.Source = .camera("/dev/video0")
        public var models: PoseModelFiles
        public var threads = 1
        /// Seconds from a frame's capture to its sound (`--pose-delay`).
        public var delay = PoseInput.defaultDelay
        public var regionNames: [String] = []
        public var regionModel = RegionModel()

        public init(models: PoseModelFiles) { self.models = models }
    }

    /// Covers inference on this machine (BlazePose's two models: about 25 ms a frame on one core)
    /// and a frame's reading, with room to spare; capture → drum stays under 60 ms.
    public static let defaultDelay = 0.05

    public let configuration: Configuration
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
    private let clock: LabClock
    private let log: @Sendable (String) -> Void
    private let mailbox = FrameMailbox()
    private let stopBell = Doorbell()
    private let running = ManagedAtomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let statusBox = LockedBox(PoseStatus())
    private let skeleton = LockedBox<(landmarks: [PoseLandmark], width: Int, height: Int)?>(nil)
    /// The opened source and tracker, handed to the threads at start.
    private let opened: LockedBox<(video: VideoSource?, tracker: PoseTracker?)>

    /// Control thread. Opens the source and the models now, so that a missing camera, an
    /// unreadable file, a model that is not one or a missing LiteRT is one clear error before
    /// JACK is touched.
    public init(configuration: Configuration, clock: LabClock, log: @escaping @Sendable (String) -> Void) throws(PoseError) {
        self.configuration = configuration
        self.clock = clock
        self.log = log
        let tracker = try Self.backgroundTracker(configuration)
        let video = try VideoSource(configuration.source)
        opened = LockedBox((video, tracker))
        statusBox.withLockedValue { $0.source = configuration.source.name }
    }

    deinit { stop() }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (video, tracker) = opened.withLockedValue { opened in defer { opened = (nil, nil) }; return opened }
        guard let tracker else { return }
        Thread { [self] in
            ThreadName.set("pj-pose-in")
            capture(video)
            finished.signal()
        }.start()
        Thread { [self] in
            ThreadName.set("pj-pose")
            Self.giveWay()
            infer(tracker)
            finished.signal()
        }.start()
    }

    /// Inference takes a core for tens of milliseconds a frame: under a JACK server that gives
    /// its clients no real-time priority, the process thread, at the same nice value, lost a
    /// cycle at nearly every frame (33 in a 7-second video; 2 at nice 10). Linux's nice value is
    /// the calling thread's, and threads inherit their maker's.
    private static func giveWay() {
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    }

    /// The tracker, made on a thread that gave way: XNNPACK's workers (`--pose-threads` above
    /// 1) are made with the model and inherit its nice value.
    private static func backgroundTracker(_ configuration: Configuration) throws(PoseError) -> PoseTracker {
        let made = LockedBox<Result<PoseTracker, PoseError>?>(nil), done = DispatchSemaphore(value: 0)
        Thread {
            ThreadName.set("pj-pose-load")
            giveWay()
            let result = Result { () throws(PoseError) in try PoseTracker(models: configuration.models, threads: configuration.threads) }
            made.withLockedValue { $0 = result }
            done.signal()
        }.start()
        done.wait()
        return try made.withLockedValue { $0! }.get()
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        stopBell.ring()
        mailbox.bell.ring()
        finished.wait()
        finished.wait()
    }

    public var status: PoseStatus { statusBox.withLockedValue { $0 } }
    /// The newest landmarks; nil when no one is seen.
    public var landmarks: [PoseLandmark]? { skeleton.withLockedValue { $0?.landmarks } }

    /// The page's skeleton over the regions (`PoseSkeleton`); nil when no one is seen.
    public var skeletonJSON: String? {
        skeleton.withLockedValue { $0 }.flatMap { PoseSkeleton.json($0.landmarks, width: $0.width, height: $0.height, regions: configuration.regionModel) }
    }

    public func statusValues(performers: [String]) -> [(String, StatusValue)] { status.fields }

    // MARK: The capture thread

    private func capture(_ first: VideoSource?) {
        var video = first
        while running.load(ordering: .acquiring) {
            guard let source = video ?? reopen() else { continue }
            video = source
            var pacing = FilePacing()
            while running.load(ordering: .acquiring) {
                let frame: RGBFrame?
                do { frame = try source.next() } catch {
                    dropout("\(error)")
                    // A camera is opened again; a file that fails has ended.
                    if case .file = source.source { return }
                    break
                }
                guard var frame else {
                    dropout("\(source.source.name): the video ended")
                    return
                }
                if case .file = source.source {
                    guard let due = pacing.due(frame.time), stopBell.wait(seconds: due - MonotonicClock.seconds) == false else { return }
                    frame.time = due
                } else if !(abs(frame.time - MonotonicClock.seconds) < 1) {
                    // A driver whose buffer times are not CLOCK_MONOTONIC's: stamped as read.
                    frame.time = MonotonicClock.seconds
                }
                if mailbox.put(frame) { statusBox.withLockedValue { $0.dropped += 1 } }
            }
            video = nil
        }
    }

    /// A camera that failed, opened again once a second until it answers or the run stops.
    private func reopen() -> VideoSource? {
        if stopBell.wait(seconds: 1) { return nil }
        return try? VideoSource(configuration.source)
    }

    private func dropout(_ why: String) {
        statusBox.withLockedValue { $0.dropouts += 1; $0.state = "dropout" }
        log("pose: \(why) (a dropout: the show goes on)")
    }

    /// A file's frames at its own rate from now: each frame's time on CLOCK_MONOTONIC.
    struct FilePacing {
        private var start: (monotonic: Double, stream: Double)?

        mutating func due(_ streamTime: Double) -> Double? {
            guard streamTime.isFinite else { return nil }
            let start = self.start ?? (MonotonicClock.seconds, streamTime)
            self.start = start
            return start.monotonic + (streamTime - start.stream)
        }
    }

    // MARK: The pose thread

    private func infer(_ tracker: PoseTracker) {
        var making = PoseMessages(regionNames: configuration.regionNames, regionModel: configuration.regionModel)
        var meter = PoseMeter()
        let delayFrames = Int64((configuration.delay * Double(clock.sampleRate)).rounded())
        while running.load(ordering: .acquiring) {
            guard let frame = mailbox.take() else {
                mailbox.bell.wait(seconds: 0.5)
                continue
            }
            let estimate: PoseTracker.Estimate
            do { estimate = try tracker.estimate(frame) } catch {
                log("pose: \(error)")
                continue
            }
            meter.frame(latency: MonotonicClock.seconds - frame.time)
            let hands = estimate.landmarks.flatMap { PoseHands($0, width: frame.width, height: frame.height) }
            skeleton.withLockedValue { $0 = estimate.landmarks.map { ($0, frame.width, frame.height) } }
            var late = 0
            if let hands, let captured = Int64(checkedRounding: clock.frame(atSeconds: frame.time)) {
                let due = captured + delayFrames
                late = send(hands, at: due, through: &making)
            }
            statusBox.withLockedValue { status in
                status.state = estimate.landmarks == nil ? (estimate.detected ? "detecting" : "lost") : (estimate.detected ? "found" : "tracking")
                status.presence = Double(estimate.presence)
                status.late += late
                meter.report(into: &status)
            }
        }
    }

    /// The hands at `due`, pushed; how many region hits were late (played at once).
    private func send(_ hands: PoseHands, at due: Int64, through making: inout PoseMessages) -> Int {
        let late = due < clock.currentFrame
        let made = making.messages(hands, at: due, playedAt: late ? ControlMessage.immediate : due)
        for message in made.messages { _ = ring.producer.push(message) }
        return late ? made.hits : 0
    }
}
