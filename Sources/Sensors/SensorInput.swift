import BodySignals
import Atomics
import Foundation
import Inputs
import Realtime

/// The body sensors, read directly over Bluetooth LE: one sensor thread owns the BlueZ
/// connection (`BLECentral`), finds each requested device, connects, subscribes and reconnects
/// with back-off when it goes away, and turns what devices send into the control messages OSC
/// produces — in this input's own ring, at the frame of the notification's arrival — so that
/// the clock, performers, dropout watch, page and session logs treat a sensor's heart as any
/// other. Malformed notifications are counted and said (at most once a second), never fatal.
public final class SensorInput: Sendable {
    public struct Configuration: Sendable {
        public var sensors: [SensorRequest] = []
        /// The Bluetooth adapter (`hci1`, or its address); nil: the first.
        public var adapter: String?
        /// Schedule each heart's next beats from its RR intervals (`--predict-beats`).
        public var predictBeats = false
        /// Seconds from a Polar ECG's R-peak to its beat, without prediction (`--ecg-delay`).
        public var ecgDelay = ECGBeatTimeline.defaultDelay
        /// The D-Bus BlueZ is on (nil: the system bus, or `DBUS_SYSTEM_BUS_ADDRESS`).
        public var busAddress: String?
        public init() {}
    }

    public let configuration: Configuration
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
    /// Messages the ring had no room for.
    public let dropped = ManagedAtomic<Int>(0)
    private let statuses: LockedBox<[SensorStatus]>
    private let clock: FrameClock
    private let hearts: HeartWatch?
    private let moods: MoodWatch?
    private let log: @Sendable (String) -> Void
    private let say: @Sendable (String) -> Void
    private let running = ManagedAtomic<Bool>(false)
    private let finished = ManagedAtomic<Bool>(true)
    /// Rung by `stop`: the sensor thread sleeps on the bus beside it.
    private let stopBell = Doorbell()
    private let reports = WarningLimiter()
    /// For each recent notification: when (wall clock, seconds since 1970) the sensor thread got
    /// it from the bus and when its messages were in the ring (the bench's figures).
    public let handled = LockedBox<[(received: Double, pushed: Double)]>([])

    /// Control thread.
    /// `log` takes problems (a warning each), `say` the news (a device connected).
    public init(configuration: Configuration, clock: FrameClock, hearts: HeartWatch?, moods: MoodWatch? = nil,
                log: @escaping @Sendable (String) -> Void, say: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.moods = moods
        self.say = say
        self.clock = clock
        self.hearts = hearts
        self.log = log
        statuses = LockedBox(configuration.sensors.map(SensorStatus.init))
    }

    deinit { stop() }

    /// Any thread: each sensor's state.
    public var status: [SensorStatus] { statuses.withLockedValue { $0 } }

    /// Control thread. Starts the sensor thread.
    public func start() {
        guard !configuration.sensors.isEmpty, !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.store(false, ordering: .releasing)
        let thread = Thread { [self] in
            ThreadName.set("pj-sensors")
            run()
            finished.store(true, ordering: .releasing)
        }
        thread.start()
    }

    /// Control thread. Stops the sensor thread (woken at once; its links are disconnected).
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        stopBell.ring()
        let deadline = MonotonicClock.seconds + 5
        while !finished.load(ordering: .acquiring) && MonotonicClock.seconds < deadline { usleep(10_000) }
    }

    // MARK: The sensor thread

    private func run() {
        let links = configuration.sensors.enumerated().map { index, request in
            SensorLink(index: index, request: request, sampleRate: clock.sampleRate, predicts: configuration.predictBeats,
                       ecgDelay: configuration.ecgDelay)
        }
        let connector = SensorConnector(links: links, report: { [self] link, change in update(link, change) },
                                        tell: { [self] link, text, problem in tell(link, text, problem: problem) })
        var central: BLECentral?
        var nextAttempt = -Double.infinity
        var lastProblem: String?
        while running.load(ordering: .acquiring) {
            if central == nil {
                let wait = nextAttempt - MonotonicClock.seconds
                guard wait <= 0 else {
                    stopBell.wait(seconds: wait)
                    continue
                }
                do {
                    central = try open(links: links, connector: connector)
                    lastProblem = nil
                } catch {
                    // Said once while it lasts; tried again every few seconds (BlueZ may be starting).
                    if error.description != lastProblem { log("sensors: \(error)") }
                    lastProblem = error.description
                    for link in links { update(link) { $0.problem = error.description; $0.state = .searching } }
                    nextAttempt = MonotonicClock.seconds + 3
                    continue
                }
            }
            guard let bluetooth = central else { continue }
            connector.step(bluetooth, now: MonotonicClock.seconds)
            do {
                try bluetooth.pump(seconds: connector.sleepSeconds(now: MonotonicClock.seconds), orRung: stopBell)
            } catch {
                log("sensors: \(error)")
                central = nil
                connector.busLost(at: MonotonicClock.seconds)
            }
        }
        if let central {
            for link in links { if let path = link.devicePath { central.disconnect(path) } }
        }
    }

    private func open(links: [SensorLink], connector: SensorConnector) throws(SensorError) -> BLECentral {
        let central = try BLECentral(adapter: configuration.adapter, busAddress: configuration.busAddress)
        central.onValue = { [weak self, weak central] path, bytes in
            guard let self, let central else { return }
            self.value(bytes, at: path, links: links, central: central)
        }
        central.onDeviceLost = { path in connector.deviceWentAway(path) }
        return central
    }

    /// A characteristic's notification: decoded by its kind's decoder, turned into messages at
    /// the arrival frame. Bytes that do not decode are counted and said (at most once a second).
    private func value(_ bytes: [UInt8], at path: String, links: [SensorLink], central: BLECentral) {
        guard let link = links.first(where: { $0.characteristics[path] != nil }), let uuid = link.characteristics[path] else { return }
        let received = Date().timeIntervalSince1970
        let frame = clock.currentFrame()
        do {
            try link.decoder.decode(bytes, characteristic: uuid, at: frame, performer: link.request.performer, into: LinkSink(input: self, link: link))
        } catch {
            update(link) { $0.malformed += 1; $0.notifications += 1 }
            if let line = reports.admit("sensors: \(link.deviceLabel ?? path): \(error) (ignored)", kind: "sensor") { log(line) }
        }
        let pushed = Date().timeIntervalSince1970
        handled.withLockedValue { $0 = Array(($0 + [(received, pushed)]).suffix(1000)) }
    }

    /// Where one link's decoder puts what it finds.
    private struct LinkSink: SensorSink {
        let input: SensorInput
        let link: SensorLink

        func push(_ messages: [ControlMessage]) { input.push(messages) }
        func update(_ change: (inout SensorStatus) -> Void) { input.update(link, change) }
        func heardHeart() { input.hearts?.heard(performer: link.request.performer) }
        func observe(_ band: EEGBand, _ value: Double) { input.moods?.observe(band, value, performer: link.request.performer) }
        func problem(_ text: String) {
            update { $0.problem = text }
            if let line = input.reports.admit("sensors: " + text, kind: "sensor") { input.log(line) }
        }
        var deviceLabel: String? { link.deviceLabel }
    }

    /// Into this input's ring; what it has no room for is counted.
    private func push(_ messages: [ControlMessage]) {
        for message in messages where !ring.producer.push(message) { dropped.wrappingIncrement(ordering: .relaxed) }
    }

    private func update(_ link: SensorLink, _ change: (inout SensorStatus) -> Void) {
        statuses.withLockedValue { change(&$0[link.index]) }
    }

    private func tell(_ link: SensorLink, _ text: String, problem: Bool) {
        let whose = configuration.sensors.contains { $0.performer > 0 } ? "performer \(link.request.performer + 1): " : ""
        problem ? log(whose + text) : say("pulsejack: " + whose + text)
    }
}

extension SensorInput: InputSource {
    /// Each sensor's state, device, notifications and battery: `heart_sensor…` and `eeg_sensor…`
    /// for the first performer's (or the one heart's), and again with `_<name>` per named performer.
    public func statusValues(performers: [String]) -> [(String, StatusValue)] {
        var values: [(String, StatusValue)] = []
        for status in self.status {
            let descriptor = SensorKinds.descriptor(status.request.kind)
            let stem = descriptor.role.rawValue + "_sensor"
            var fields: [(String, StatusValue)] = [
                ("", .text(status.state.rawValue)), ("_device", .text(status.device ?? "")),
                ("_notifications", .int(status.notifications)), ("_malformed", .int(status.malformed)),
                ("_battery", .int(status.battery ?? -1)),
            ]
            if let problem = status.problem { fields.append(("_problem", .text(problem))) }
            fields += descriptor.statusFields(status)
            let performer = status.request.performer
            if performer == 0 { values += fields.map { (stem + $0.0, $0.1) } }
            if performer < performers.count {
                values += fields.map { (stem + $0.0 + "_" + performers[performer], $0.1) }
            }
        }
        return values
    }

}
