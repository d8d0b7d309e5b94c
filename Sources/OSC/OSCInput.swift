import BodySignals
import Inputs
import Atomics
import Foundation
import Glibc
import Realtime

/// The OSC sensor input: a UDP socket on its own thread, bound to 127.0.0.1 by default. Each
/// datagram is decoded (liblo), routed (`OSCRoutes`), interpreted (`SensorInterpreter`: PPG
/// beats, pose regions, mood, prediction) and pushed into this input's own ring, at the frame
/// its bundle's timetag maps to, or at the next period when it has none. Bad packets are
/// counted and logged (at most one line a second), never fatal. `/pulse/status` is answered
/// with the values `status` gives; `/meter/subscribe` joins `meters`.
public final class OSCInput: Sendable {
    public struct Configuration: Sendable {
        public var port: UInt16 = 9000
        public var bind = "127.0.0.1"
        /// Samples per second of `/pulse/ppg` (changed by `/pulse/ppg/rate f`).
        public var ppgRate = 100.0
        /// Schedule each beat from recent intervals (PPG and explicit beats), so that sound lands
        /// on the beat rather than after its detection.
        public var predictBeats = false
        /// The mood model for `/muse/elements/…` (the preset's ranges and window).
        public var mood = MoodModel()
        /// The region model for `/pose/hands` (the preset's scale and thresholds).
        public var regions = RegionModel()
        /// How late a detected beat is known (sensor, transport, detector); predictions are this
        /// much earlier than the last beat plus an interval.
        public var detectionLatency = 0.06
        /// Bundles timetagged further ahead than this (seconds) are refused and counted
        /// (`too_far_ahead`): the engine's queue is for what is coming soon, not for an hour.
        public var horizonSeconds = 60.0
        /// Who may get replies (`/pulse/status`) and meters (`/meter/subscribe`): loopback only
        /// unless `--osc-allow` widens it, so pulsejack cannot be made to flood a third party.
        public var replyTo = AddressRange.loopback
        /// The socket's receive buffer: a burst of sensor packets waits here while the thread is busy.
        public var receiveBufferBytes = 4 << 20
        public init() {}
    }

    public let configuration: Configuration
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
    public let counters = OSCCounters()
    public let boundPort: UInt16
    private let routes: OSCRoutes
    private let clock: FrameClock?
    private let status: @Sendable () -> [(String, StatusValue)]
    /// Where requests for the control thread go (nil: they are refused as unknown addresses).
    private let requests: (@Sendable (OSCRequest) -> Void)?
    private let log: @Sendable (String) -> Void
    private let socket: UDPSocket
    /// The `/meter` subscribers, sent to from this input's port.
    public let meters: OSCMeterOutput
    /// The receive buffer the kernel granted (bytes, as SO_RCVBUF reports it).
    public let receiveBufferBytes: Int
    private let running = ManagedAtomic<Bool>(false)
    private let stopping = Doorbell()
    /// Per performer (one when the preset names none): what their sensors have said so far.
    /// The receiving thread's (or a test's, handing datagrams in itself); locked so that no
    /// second caller can tear it.
    private let senses: LockedBox<[Senses]>
    private struct Senses: Sendable {
        /// Their PPG detector and beat predictor, their hands' regions (each with its own
        /// hysteresis) and their mood.
        var interpreter: SensorInterpreter
    }
    /// The watch over every heart source, told of each performer's heart data that comes here.
    private let hearts: HeartWatch?
    /// Each performer's mood, from the band powers that come here (and from any other EEG
    /// source the run shares it with).
    public let moods: MoodWatch
    /// Bad packets and refusals said at most once a second in all (a flood of them must not flood the log).
    private let reports = WarningLimiter()

    /// Control thread. Binds the socket (port 0 picks a free one; see `boundPort`).
    public init(configuration: Configuration, routes: OSCRoutes, clock: FrameClock?,
                status: @escaping @Sendable () -> [(String, StatusValue)] = { [] },
                requests: (@Sendable (OSCRequest) -> Void)? = nil, hearts: HeartWatch? = nil, moods: MoodWatch? = nil,
                log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.moods = moods ?? MoodWatch(model: configuration.mood, performers: routes.performers, log: log)
        self.configuration = configuration
        self.hearts = hearts
        self.routes = routes
        self.clock = clock
        self.status = status
        self.requests = requests
        self.log = log
        let performers = max(1, routes.performers.count)
        senses = LockedBox((0..<performers).map { _ in
            Senses(interpreter: SensorInterpreter(regionNames: routes.regionNames, regionModel: configuration.regions,
                                                  ppgRate: configuration.ppgRate))
        })
        guard let address = UDPSocket.Address(host: configuration.bind, port: configuration.port) else {
            throw OSCInputError("--osc-bind \(configuration.bind) is not an IP address")
        }
        do { socket = try UDPSocket(binding: address) } catch {
            throw OSCInputError("cannot listen for OSC on \(address): \(error) (choose another with --osc-port, or --no-osc)")
        }
        meters = OSCMeterOutput(socket: socket)
        receiveBufferBytes = socket.setReceiveBuffer(bytes: configuration.receiveBufferBytes)
        boundPort = socket.local.port
    }

    deinit { stop() }

    /// Control thread. Starts the receiving thread.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [weak self] in
            ThreadName.set("pj-osc")
            self?.receiveLoop()
        }
        thread.start()
    }

    /// Control thread. Stops the receiving thread (it wakes at once).
    public func stop() {
        running.store(false, ordering: .releasing)
        stopping.ring()
    }

    /// The OSC thread: asleep until a datagram comes or `stop` rings.
    private func receiveLoop() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while running.load(ordering: .acquiring) {
            guard stopping.wait(orReadable: socket.descriptor).readable,
                  let (count, source) = buffer.withUnsafeMutableBytes({ socket.receive(into: $0, timeout: 0) }) else { continue }
            counters.set(.kernelDrops, Int(socket.kernelDrops))
            buffer.withUnsafeBytes { handle(datagram: UnsafeRawBufferPointer(rebasing: $0[0..<count]), replyTo: source) }
        }
    }

    /// Control thread. Decodes, routes and pushes one datagram.
    public func handle(datagram: UnsafeRawBufferPointer, replyTo: UDPSocket.Address? = nil) {
        counters.add(.received)
        guard datagram.count > 0 else {
            counters.add(.empty)
            return
        }
        let messages: [OSCMessage]
        do {
            messages = try OSCPacket.decode(datagram)
        } catch {
            counters.add(.malformed)
            report("malformed OSC packet (\(datagram.count) bytes): \(error)")
            return
        }
        for message in messages { handle(message, replyTo: replyTo) }
    }

    /// Whether `sender` may get replies; a refusal is counted and logged.
    private func mayReply(to sender: UDPSocket.Address, for address: String) -> Bool {
        guard configuration.replyTo.contains(where: { $0.contains(sender) }) else {
            counters.add(.refusedReplies)
            report("\(address) from \(sender) not answered: replies go only to --osc-allow ranges (\(configuration.replyTo.map(\.description).joined(separator: ", ")))")
            return false
        }
        return true
    }

    private func handle(_ message: OSCMessage, replyTo: UDPSocket.Address?) {
        var message = message
        var performer: UInt8 = 0
        if let split = routes.splitPerformer(message.address) {
            guard let index = split.performer else {
                counters.add(.unknownAddress)
                return report("unknown OSC address \(message.address) (performers: \(routes.performers.joined(separator: ", ")); each has \(OSCRoutes.performerAddresses))")
            }
            performer = index
            message.address = split.address
        }
        let match = OSCAddresses.match(message.address)
        if let kind = match?.entry.kind, match?.entry.byInput == true { return handleOwn(kind, message, replyTo: replyTo, performer: performer) }
        let outcome = routes.route(message, match: match)
        if configuration.predictBeats, message.timetag == nil, case .events(let events) = outcome,
           case .heartbeat(let strength) = events.first {
            heartData(performer: Int(performer))
            return senses.withLockedValue { beatDetected(strength: strength, performer: performer, by: &$0[Int(performer)].interpreter) }
        }
        deliver(outcome, of: message, performer: performer)
    }

    /// The addresses the input answers itself (`OSCAddresses.Entry.byInput`): the status and
    /// meter subscriptions it replies to, and the pulse wave its detector reads.
    private func handleOwn(_ kind: OSCAddresses.Kind, _ message: OSCMessage, replyTo: UDPSocket.Address?, performer: UInt8) {
        switch kind {
        case .status:
            if let replyTo, mayReply(to: replyTo, for: message.address) { reply(to: replyTo) }
            return
        case .meterSubscribe, .meterUnsubscribe:
            guard var subscriber = replyTo, mayReply(to: subscriber, for: message.address) else { return }
            if let port = message.numbers?.first {
                guard port.isFinite, (1...65_535).contains(port) else {
                    counters.add(.badArguments)
                    return report("\(message.address) expects a UDP port 1…65535 (or none: the sender's)")
                }
                subscriber = subscriber.with(port: UInt16(port))
            }
            if meters.subscribe(subscriber, on: message.address == "/meter/subscribe") {
                report("more than \(OSCMeterOutput.maximumSubscribers) /meter subscribers: the oldest is dropped")
            }
            return
        case .ppgRate:
            guard let rate = message.numbers?.first, rate.isFinite, (10...10_000).contains(rate) else {
                counters.add(.badArguments)
                return report("/pulse/ppg/rate expects a rate 10…10000 Hz")
            }
            senses.withLockedValue { $0[Int(performer)].interpreter.setPPGRate(rate) }
            return
        case .ppg:
            guard let samples = message.numbers, !samples.isEmpty else {
                counters.add(.badArguments)
                return report("/pulse/ppg expects pulse-wave samples")
            }
            // A NaN would poison the detector's filters for good: refused, counted.
            let plausible = samples.filter(OutsideNumber.isPlausible)
            if plausible.count < samples.count {
                counters.add(.implausible)
                report("/pulse/ppg: \(samples.count - plausible.count) sample(s) not a finite number of sensible size, refused")
            }
            heartData(performer: Int(performer))
            senses.withLockedValue { senses in
                for sample in plausible where senses[Int(performer)].interpreter.pulseWave(sample) {
                    counters.add(.ppgBeats)
                    // Explicit beats only: a tempo too would start the clock's own beats beside them.
                    // The rate is published in /pulse/status.
                    beatDetected(strength: 1, performer: performer, by: &senses[Int(performer)].interpreter)
                }
            }
            return
        default:
            break
        }
    }

    /// What a routed message comes to: pushed into the engine's ring at its frame (a timetag's,
    /// or now), handed to the control thread, or refused and counted.
    private func deliver(_ outcome: OSCRoutes.Outcome, of message: OSCMessage, performer: UInt8) {
        switch outcome {
        case .events(let events):
            if message.address.hasPrefix("/pulse/") { heartData(performer: Int(performer)) }
            var frame = ControlMessage.immediate
            if let timetag = message.timetag, let clock {
                frame = clock.frame(forTimetag: timetag)
                let now = clock.currentFrame()
                if frame < now {
                    counters.add(.lateBundles)
                    frame = ControlMessage.immediate
                } else if frame - now > Int64(configuration.horizonSeconds * Double(clock.sampleRate)) {
                    counters.add(.tooFarAhead)
                    return report(String(format: "%@: timetag %.0f s ahead refused (at most %.0f s)", message.address,
                                         Double(frame - now) / Double(clock.sampleRate), configuration.horizonSeconds))
                }
            }
            for event in events { push(event, frame: frame, performer: performer) }
            if case .pose(let lx, let ly, let rx, let ry) = events.first { poseRegions(lx, ly, rx, ry, frame: frame, performer: performer) }
            if case .bandPower(let band, let value) = events.first { moods.observe(band, Double(value), performer: Int(performer)) }
        case .request(let request):
            guard let requests else {
                counters.add(.unknownAddress)
                return report("\(message.address): not available here")
            }
            requests(request)
        case .implausible(let what):
            counters.add(.implausible)
            report("\(message.address): \(what) rejected (not a plausible heart)")
        case .unknownAddress:
            counters.add(.unknownAddress)
            report("unknown OSC address \(message.address)")
        case .badArguments(let why):
            counters.add(.badArguments)
            report(why)
        }
    }

    /// The first performer's current mood (nil: undefined, no EEG data).
    public var mood: String? { mood(of: 0) }

    /// Performer `index`'s current mood (their own `/performer/<name>/muse/…`).
    public func mood(of index: Int) -> String? { moods.mood(of: index) }

    /// The EEG band powers averaged over the mood window (bands not seen are absent).
    public var bandPowers: [EEGBand: Double] { moods.averages() }

    /// Hands crossing into a region the preset names: a hit at the interpolated crossing frame.
    private func poseRegions(_ lx: Float, _ ly: Float, _ rx: Float, _ ry: Float, frame: Int64, performer: UInt8) {
        let at = frame == ControlMessage.immediate ? (clock?.currentFrame() ?? 0) : frame
        let hits = senses.withLockedValue { $0[Int(performer)].interpreter.pose(frame: at, leftX: lx, leftY: ly, rightX: rx, rightY: ry) }
        for hit in hits {
            push(.regionHit(region: hit.region, velocity: 1), frame: frame == ControlMessage.immediate ? frame : hit.frame)
        }
    }

    /// A beat just detected: played now, or with prediction, the next beat scheduled from
    /// recent intervals (the detected one is already past when it is known).
    private func beatDetected(strength: Float, performer: UInt8, by interpreter: inout SensorInterpreter) {
        guard configuration.predictBeats, let clock else {
            return push(.heartbeat(strength: strength), frame: ControlMessage.immediate, performer: performer)
        }
        if let next = interpreter.predictNextBeat(detectedAt: clock.currentFrame(),
                                                              latencyFrames: Int64(configuration.detectionLatency * Double(clock.sampleRate))) {
            push(.heartbeat(strength: strength), frame: next, performer: performer)
        }
    }

    private func push(_ event: ControlMessage.Event, frame: Int64, performer: UInt8 = 0) {
        if !ring.producer.push(ControlMessage(frame: frame, performer: performer, event)) {
            counters.add(.dropped)
        }
    }

    private func heartData(performer: Int) {
        hearts?.heard(performer: performer)
    }

    /// At most one log line a second, whatever its kind; the rest are counted and summarised.
    private func report(_ line: String) {
        if let admitted = reports.admit(line, kind: "osc") { log(admitted) }
    }

    /// Clients subscribed to `/meter`.
    public var subscriberCount: Int { meters.count }

    /// Replies to the sender: `/pulse/status` with name, value pairs.
    private func reply(to destination: UDPSocket.Address) {
        // The PPG detector's last inter-beat interval (ms) and rate, when it has found beats.
        let heart = senses.withLockedValue { $0[0].interpreter.ppgInterval }.map { [("ppg_ibi_ms", Int(($0 * 1000).rounded())), ("ppg_bpm", Int((60 / $0).rounded()))] } ?? []
        let values = (counters.status + heart).map { ($0, StatusValue.int($1)) }
            + [("receive_buffer_bytes", StatusValue.int(receiveBufferBytes))] + status()
            + [("mood", StatusValue.text(mood ?? "undefined"))]
            + (routes.performers.count > 1 ? routes.performers.enumerated().map { ("mood_" + $1, StatusValue.text(mood(of: $0) ?? "undefined")) } : [])
        socket.send(OSCReply.encode("/pulse/status", values), to: destination)
    }
}

public struct OSCInputError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension OSCInput: InputSource {}
