import Realtime
/// Control from the web page: the page's commands are OSC messages in JSON (address and
/// arguments), routed by the same `OSCRoutes`, checked by the same rules and counted in the
/// same counters as OSC, and pushed into this input's own ring, which the engine drains like
/// any other source. Many page connections push; the ring has one producer, so they take turns
/// behind a lock the process thread never takes (it only pops).
///
/// What the page may not do: load files (plugin states), or play a sensor's stream (pose, EEG,
/// PPG: those need the OSC input's detectors and come over OSC).
public final class PageInput: Sendable {
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
    public let counters = OSCCounters()
    private let routes: OSCRoutes
    private let producer: LockedBox<SPSCRing<ControlMessage>.Producer>
    /// The watch over every heart source: a tempo, beat or RR interval from the page is heart data.
    private let hearts: HeartWatch?

    public init(routes: OSCRoutes, hearts: HeartWatch? = nil) {
        self.routes = routes
        producer = LockedBox(ring.producer)
        self.hearts = hearts
    }

    /// A page's command: nil when it went to the engine, else why not (counted).
    public func handle(_ message: OSCMessage) -> String? {
        counters.add(.received)
        var message = message
        var performer: UInt8 = 0
        if let split = routes.splitPerformer(message.address) {
            guard let index = split.performer else {
                counters.add(.unknownAddress)
                return "unknown address \(message.address)"
            }
            performer = index
            message.address = split.address
        }
        // The table says what the page may send: not the sensor streams (they need the OSC
        // input's detectors), not file loads, not the replies an OSC sender asks for.
        if let entry = OSCAddresses.match(message.address)?.entry, !entry.fromPage {
            counters.add(.unknownAddress)
            switch entry.kind {
            case .insertState: return "\(message.address): loading files is not offered to the page"
            case .insertPreset: return "\(message.address): loading a plugin's preset is not offered to the page"
            case .status, .meterSubscribe, .meterUnsubscribe: return "unknown address \(message.address)"
            default: return "\(message.address): sensor streams come over OSC"
            }
        }
        switch routes.route(message) {
        case .events(let events):
            let refused = producer.withLockedValue { producer in
                events.contains { !producer.push(ControlMessage(frame: ControlMessage.immediate, performer: performer, $0)) }
            }
            if refused {
                counters.add(.dropped)
                return "\(message.address): the engine's ring is full"
            }
            if message.address.hasPrefix("/pulse/") { hearts?.heard(performer: Int(performer)) }
            return nil
        case .request:
            counters.add(.unknownAddress)
            return "\(message.address): loading files is not offered to the page"
        case .implausible(let what):
            counters.add(.implausible)
            return "\(message.address): \(what) rejected (not a plausible heart)"
        case .unknownAddress:
            counters.add(.unknownAddress)
            return "unknown address \(message.address)"
        case .badArguments(let why):
            counters.add(.badArguments)
            return why
        }
    }
}

extension PageInput: InputSource {}
