import BodySignals
import Realtime
/// Which control message each OSC address makes, for this preset's voices, regions, inserts
/// and performers: the addresses are `OSCAddresses`' table (the ones `OSCInput` handles itself
/// are not routed here). With the preset's performers, an address the table marks
/// `perPerformer` is that performer's under `/performer/<name>` (`splitPerformer`); unprefixed,
/// the first performer's. Control thread.
public struct OSCRoutes: Sendable {
    public var voices: [String: Int32]
    public var regions: [String: Int32]
    /// The region names in index order.
    public let regionNames: [String]
    /// Insert controls by address ("voice/piano/insert/1/gain", "master/insert/1/bypass").
    public var inserts: [String: InsertRoute]
    /// The preset's performers, in order (empty: one unnamed heart).
    public let performers: [String]
    /// The signals the preset's modulations read (`/signal/<name>`), and how many modulations it has.
    public let signals: [String: Int32]
    public let modulationCount: Int

    public init(voices: [String], regions: [String] = [], inserts: [String: InsertRoute] = [:], performers: [String] = [],
                signals: [String] = [], modulations: Int = 0) {
        regionNames = regions
        self.inserts = inserts
        self.performers = performers
        self.signals = Dictionary(uniqueKeysWithValues: signals.enumerated().map { ($1, Int32($0)) })
        modulationCount = modulations
        self.voices = Dictionary(uniqueKeysWithValues: voices.enumerated().map { ($1, Int32($0)) })
        self.regions = Dictionary(uniqueKeysWithValues: regions.enumerated().map { ($1, Int32($0)) })
    }

    public enum Outcome: Equatable {
        case events([ControlMessage.Event])
        /// Work for the control thread, not a message for the engine (loading a plugin state).
        case request(OSCRequest)
        /// Well-formed, but a value no heart has (counted as rejected).
        case implausible(String)
        case unknownAddress
        case badArguments(String)
    }

    /// `/performer/<name>/…` → the performer's index and the address without the prefix; nil for
    /// an address without the prefix; a nil index for an unknown name or an address a performer
    /// does not have (the table's `perPerformer` ones: their heart, hands and mood).
    public func splitPerformer(_ address: String) -> (performer: UInt8?, address: String)? {
        guard address.hasPrefix("/performer/") else { return nil }
        let parts = address.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        // ["", "performer", "<name>/rest"]
        guard parts.count == 3, let slash = parts[2].firstIndex(of: "/") else { return (nil, address) }
        let name = String(parts[2][..<slash]), rest = String(parts[2][slash...])
        guard let index = performers.firstIndex(of: name), OSCAddresses.match(rest)?.entry.perPerformer == true else {
            return (nil, address)
        }
        return (UInt8(index), rest)
    }

    /// The addresses a performer has, for an error that lists them.
    public static var performerAddresses: String {
        OSCAddresses.all.filter(\.perPerformer).flatMap(\.patterns).joined(separator: ", ")
    }

    public func route(_ message: OSCMessage) -> Outcome {
        route(message, match: OSCAddresses.match(message.address))
    }

    /// `match`: the message's address matched against the table already; its entry's handler routes it.
    public func route(_ message: OSCMessage, match: OSCAddresses.Match?) -> Outcome {
        guard let match, let handler = match.entry.route else { return .unknownAddress }
        return handler(self, Request(message: message, match: match))
    }

    /// What an address's handler makes of its message: control messages, a request, or why not.
    public typealias Handler = @Sendable (OSCRoutes, Request) -> Outcome

    /// One message to route, with its address's captures and the checks every handler makes.
    public struct Request {
        public let message: OSCMessage
        public let match: OSCAddresses.Match

        /// The "name" placeholder's value ("" when the address has none).
        var name: String { match.captures["name"] ?? "" }

        /// The arguments as numbers, when there are `count` of them.
        func floats(_ count: ClosedRange<Int>) -> [Double]? {
            guard let numbers = message.numbers, count.contains(numbers.count) else { return nil }
            return numbers
        }

        func expecting(_ what: String) -> Outcome { .badArguments("\(message.address) expects \(what)") }
    }
}

// MARK: A heart

extension OSCRoutes {
    static func bpm(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let values = request.floats(1...1) else { return request.expecting("one number (bpm)") }
        guard PlausibleHeart.accepts(bpm: values[0]) else { return .implausible("bpm \(values[0])") }
        return .events([.tempo(bpm: values[0])])
    }

    static func beat(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let values = request.floats(0...1) else { return request.expecting("an optional strength") }
        let strength = values.first ?? 1
        guard strength.isFinite else { return .implausible("strength \(strength)") }
        return .events([.heartbeat(strength: Float(min(max(strength, 0), 1)))])
    }

    /// The tempo the latest interval implies, and the intervals (in the Heart Rate Service's
    /// 1/1024 s) for the heart's variability.
    static func rr(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let values = request.floats(1...64) else { return request.expecting("RR intervals in seconds") }
        let good = values.filter(PlausibleHeart.accepts(rr:))
        guard !good.isEmpty else { return .implausible("RR \(values)") }
        return .events([.tempo(bpm: 60 / good.last!)] + RRIntervals.chunks(seconds: good).map { .rrIntervals($0) })
    }
}

// MARK: The body beyond the heart

extension OSCRoutes {
    static func hands(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let values = request.floats(4...4), values.allSatisfy(\.isFinite) else { return request.expecting("four numbers: lx ly rx ry") }
        guard values.allSatisfy(OutsideNumber.isPlausible) else { return .implausible("hands \(values)") }
        return .events([.pose(leftX: Float(values[0]), leftY: Float(values[1]), rightX: Float(values[2]), rightY: Float(values[3]))])
    }

    static func bandPower(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let band = EEGBand.allCases.first(where: { $0.name == request.match.captures["band"] }) else { return .unknownAddress }
        guard let values = request.floats(1...4) else { return request.expecting("one number, or one per sensor") }
        let finite = values.filter(OutsideNumber.isPlausible)
        guard !finite.isEmpty else { return .implausible("no plausible band power in \(values)") }
        return .events([.bandPower(band, Float(finite.reduce(0, +) / Double(finite.count)))])
    }

    static func signal(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let index = routes.signals[request.name] else { return .unknownAddress }
        guard let values = request.floats(1...1), values[0].isFinite else { return request.expecting("one number") }
        guard OutsideNumber.isPlausible(values[0]) else { return .implausible("signal \(request.name) \(values[0])") }
        return .events([.signal(index: index, Float(values[0]))])
    }

    static func modulationEnable(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let number = Int(request.match.captures["n"] ?? ""), (1...routes.modulationCount).contains(number) else {
            return .unknownAddress
        }
        guard let values = request.floats(1...1), values[0] == 0 || values[0] == 1 else { return request.expecting("0 or 1") }
        return .events([.modulationEnable(index: Int32(number - 1), values[0] == 1)])
    }
}

// MARK: Regions and modes

extension OSCRoutes {
    static func region(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let region = routes.regions[request.name] else { return .unknownAddress }
        guard let values = request.floats(0...1), values.allSatisfy(\.isFinite) else { return request.expecting("an optional velocity") }
        return .events([.regionHit(region: region, velocity: Float(min(max(values.first ?? 1, 0), 1)))])
    }

    static func mode(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        let arguments = request.message.arguments
        guard arguments.count == 1, case .string(let name) = arguments[0],
              let mode = PerformanceMode.allCases.first(where: { "\($0)" == name }) else {
            return request.expecting("freestyle, recording or playing")
        }
        return .events([.modeChange(mode)])
    }
}

// MARK: Inserts

extension OSCRoutes {
    /// An LV2 insert's control (or bypass), checked against its range.
    static func insertControl(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        guard let route = routes.inserts[String(request.message.address.dropFirst())] else { return .unknownAddress }
        guard let values = request.message.numbers, values.count == 1, values[0].isFinite, route.accepts(Float(values[0])) else {
            return request.expecting("a value \(route.rangeDescription)")
        }
        return .events([.insertControl(route.address, Float(values[0]))])
    }

    /// A plugin state's folder loaded into an insert (work for the control thread); a number
    /// instead is a plugin's own control named "state".
    static func insertState(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        insertLoad(routes, request) { .loadInsertState(place: $0, insert: $1, folder: $2) }
    }

    /// One of the plugin's own presets loaded into an insert (work for the control thread); a
    /// number instead is a plugin's own control named "preset".
    static func insertPreset(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        insertLoad(routes, request) { .loadInsertPreset(place: $0, insert: $1, preset: $2) }
    }

    /// A load into the insert the address names, from its one string argument.
    private static func insertLoad(_ routes: OSCRoutes, _ request: Request, _ load: (String, Int, String) -> OSCRequest) -> Outcome {
        let message = request.message
        let place = request.match.captures["master"] ?? request.name
        let insert = message.address.dropFirst().split(separator: "/").dropLast().joined(separator: "/")
        guard message.arguments.count == 1, case .string(let text) = message.arguments[0] else {
            return insertControl(routes, request)
        }
        guard routes.inserts[insert + "/bypass"] != nil, let number = Int(request.match.captures["n"] ?? "") else { return .unknownAddress }
        return .request(load(place, number, text))
    }
}

// MARK: Voices

extension OSCRoutes {
    /// The voice the address names, and what to make for it.
    private static func voice(_ routes: OSCRoutes, _ request: Request, _ make: (Int32) -> Outcome) -> Outcome {
        guard let voice = routes.voices[request.name] else { return .unknownAddress }
        return make(voice)
    }

    static func voiceEnable(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        voice(routes, request) { voice in
            guard let values = request.floats(1...1), values[0].isFinite else { return request.expecting("0 or 1") }
            return .events([.voiceParameter(voice: voice, .enable(values[0] != 0))])
        }
    }

    static func voiceGain(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        voice(routes, request) { voice in
            guard let values = request.floats(1...1), values[0].isFinite, VoiceParameterRange.gain.contains(values[0]) else {
                return request.expecting("a gain \(VoiceParameterRange.describe(VoiceParameterRange.gain))")
            }
            return .events([.voiceParameter(voice: voice, .gain(Float(values[0])))])
        }
    }

    static func voicePan(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        voice(routes, request) { voice in
            guard let values = request.floats(1...1), values[0].isFinite, VoiceParameterRange.pan.contains(values[0]) else {
                return request.expecting("a pan \(VoiceParameterRange.describe(VoiceParameterRange.pan))")
            }
            return .events([.voiceParameter(voice: voice, .pan(Float(values[0])))])
        }
    }

    /// Numbers are truncated, as an OSC app sending 2.0 for "every 2nd beat" means.
    static func voiceRate(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        voice(routes, request) { voice in
            let every = VoiceParameterRange.every, subdivisions = VoiceParameterRange.subdivisions
            let usage = "every Nth beat \(every.lowerBound)…\(every.upperBound) [and a subdivision \(subdivisions.first!)…\(subdivisions.last!)]"
            guard let values = request.floats(1...2), values.allSatisfy({ $0.isFinite && $0 >= 1 && $0 < 256 }),
                  every.contains(Int(values[0])), values.count == 1 || subdivisions.contains(Int(values[1])) else {
                return request.expecting(usage)
            }
            let rate = BeatRate(everyNthBeat: UInt8(values[0]), subdivision: UInt8(values.count > 1 ? values[1] : 1))
            return .events([.voiceParameter(voice: voice, .rate(rate))])
        }
    }

    static func voiceTrigger(_ routes: OSCRoutes, _ request: Request) -> Outcome {
        voice(routes, request) { voice in
            guard let values = request.floats(0...1), values.allSatisfy(\.isFinite) else { return request.expecting("an optional velocity") }
            return .events([.voiceTrigger(voice: voice, velocity: Float(min(max(values.first ?? 1, 0), 1)))])
        }
    }
}
