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

    /// `match`: the message's address matched against the table already.
    public func route(_ message: OSCMessage, match: OSCAddresses.Match?) -> Outcome {
        guard let match, !match.entry.byInput else { return .unknownAddress }
        let numbers = message.numbers
        func floats(_ count: ClosedRange<Int>) -> [Double]? {
            guard let numbers, count.contains(numbers.count) else { return nil }
            return numbers
        }
        func expecting(_ what: String) -> Outcome { .badArguments("\(message.address) expects \(what)") }
        let name = match.captures["name"] ?? ""
        switch match.entry.kind {
        case .bpm, .beat, .rr:
            return heartRoute(match.entry.kind, floats: floats, expecting: expecting)
        case .insertState:
            let place = match.captures["master"] ?? name
            let insert = message.address.dropFirst().split(separator: "/").dropLast().joined(separator: "/")
            guard message.arguments.count == 1, case .string(let folder) = message.arguments[0] else {
                return insertControl(message, expecting)  // a plugin's own control named "state"
            }
            guard inserts[insert + "/bypass"] != nil, let number = Int(match.captures["n"] ?? "") else { return .unknownAddress }
            return .request(.loadInsertState(place: place, insert: number, folder: folder))
        case .insertControl:
            return insertControl(message, expecting)
        case .voiceEnable, .voiceGain, .voicePan, .voiceRate, .voiceTrigger:
            guard let voice = voices[name] else { return .unknownAddress }
            return voiceParameter(match.entry.kind, voice: voice, floats: floats, expecting: expecting)
        case .region:
            guard let region = regions[name] else { return .unknownAddress }
            guard let values = floats(0...1), values.allSatisfy(\.isFinite) else { return expecting("an optional velocity") }
            return .events([.regionHit(region: region, velocity: Float(min(max(values.first ?? 1, 0), 1)))])
        case .mode:
            guard message.arguments.count == 1, case .string(let name) = message.arguments[0],
                  let mode = PerformanceMode.allCases.first(where: { "\($0)" == name }) else {
                return expecting("freestyle, recording or playing")
            }
            return .events([.modeChange(mode)])
        case .hands, .bandPower, .signal:
            return bodyRoute(match, name: name, floats: floats, expecting: expecting)
        case .modulationEnable:
            guard let number = Int(match.captures["n"] ?? ""), (1...modulationCount).contains(number) else { return .unknownAddress }
            guard let values = floats(1...1), values[0] == 0 || values[0] == 1 else { return expecting("0 or 1") }
            return .events([.modulationEnable(index: Int32(number - 1), values[0] == 1)])
        case .ppg, .ppgRate, .status, .meterSubscribe, .meterUnsubscribe:
            return .unknownAddress  // the OSC input's own (`byInput`)
        }
    }

    /// A heart's BPM, beat or RR intervals.
    private func heartRoute(_ kind: OSCAddresses.Kind, floats: (ClosedRange<Int>) -> [Double]?, expecting: (String) -> Outcome) -> Outcome {
        switch kind {
        case .bpm:
            guard let values = floats(1...1) else { return expecting("one number (bpm)") }
            guard PlausibleHeart.accepts(bpm: values[0]) else { return .implausible("bpm \(values[0])") }
            return .events([.tempo(bpm: values[0])])
        case .beat:
            guard let values = floats(0...1) else { return expecting("an optional strength") }
            let strength = values.first ?? 1
            guard strength.isFinite else { return .implausible("strength \(strength)") }
            return .events([.heartbeat(strength: Float(min(max(strength, 0), 1)))])
        case .rr:
            guard let values = floats(1...64) else { return expecting("RR intervals in seconds") }
            let good = values.filter(PlausibleHeart.accepts(rr:))
            guard !good.isEmpty else { return .implausible("RR \(values)") }
            // The tempo the latest interval implies, and the intervals (in the Heart Rate Service's
            // 1/1024 s) for the heart's variability.
            return .events([.tempo(bpm: 60 / good.last!)] + RRIntervals.chunks(seconds: good).map { .rrIntervals($0) })
        default: return .unknownAddress
        }
    }

    /// The body beyond the heart: the hands, an EEG band's power, a named signal.
    private func bodyRoute(_ match: OSCAddresses.Match, name: String, floats: (ClosedRange<Int>) -> [Double]?,
                           expecting: (String) -> Outcome) -> Outcome {
        switch match.entry.kind {
        case .hands:
            guard let values = floats(4...4), values.allSatisfy(\.isFinite) else { return expecting("four numbers: lx ly rx ry") }
            guard values.allSatisfy(OutsideNumber.isPlausible) else { return .implausible("hands \(values)") }
            return .events([.pose(leftX: Float(values[0]), leftY: Float(values[1]), rightX: Float(values[2]), rightY: Float(values[3]))])
        case .bandPower:
            guard let band = EEGBand.allCases.first(where: { $0.name == match.captures["band"] }) else { return .unknownAddress }
            guard let values = floats(1...4) else { return expecting("one number, or one per sensor") }
            let finite = values.filter(OutsideNumber.isPlausible)
            guard !finite.isEmpty else { return .implausible("no plausible band power in \(values)") }
            return .events([.bandPower(band, Float(finite.reduce(0, +) / Double(finite.count)))])
        case .signal:
            guard let index = signals[name] else { return .unknownAddress }
            guard let values = floats(1...1), values[0].isFinite else { return expecting("one number") }
            guard OutsideNumber.isPlausible(values[0]) else { return .implausible("signal \(name) \(values[0])") }
            return .events([.signal(index: index, Float(values[0]))])
        default: return .unknownAddress
        }
    }

    /// An LV2 insert's control (or bypass), checked against its range.
    private func insertControl(_ message: OSCMessage, _ expecting: (String) -> Outcome) -> Outcome {
        guard let route = inserts[String(message.address.dropFirst())] else { return .unknownAddress }
        guard let values = message.numbers, values.count == 1, values[0].isFinite, route.accepts(Float(values[0])) else {
            return expecting("a value \(route.rangeDescription)")
        }
        return .events([.insertControl(route.address, Float(values[0]))])
    }

    /// A voice's switch, gain, pan, rate or trigger.
    private func voiceParameter(_ kind: OSCAddresses.Kind, voice: Int32, floats: (ClosedRange<Int>) -> [Double]?,
                                expecting: (String) -> Outcome) -> Outcome {
        switch kind {
        case .voiceEnable:
            guard let values = floats(1...1), values[0].isFinite else { return expecting("0 or 1") }
            return .events([.voiceParameter(voice: voice, .enable(values[0] != 0))])
        case .voiceGain:
            guard let values = floats(1...1), values[0].isFinite, VoiceParameterRange.gain.contains(values[0]) else {
                return expecting("a gain \(VoiceParameterRange.describe(VoiceParameterRange.gain))")
            }
            return .events([.voiceParameter(voice: voice, .gain(Float(values[0])))])
        case .voicePan:
            guard let values = floats(1...1), values[0].isFinite, VoiceParameterRange.pan.contains(values[0]) else {
                return expecting("a pan \(VoiceParameterRange.describe(VoiceParameterRange.pan))")
            }
            return .events([.voiceParameter(voice: voice, .pan(Float(values[0])))])
        case .voiceRate:
            let every = VoiceParameterRange.every, subdivisions = VoiceParameterRange.subdivisions
            let usage = "every Nth beat \(every.lowerBound)…\(every.upperBound) [and a subdivision \(subdivisions.first!)…\(subdivisions.last!)]"
            // Numbers are truncated, as an OSC app sending 2.0 for "every 2nd beat" means.
            guard let values = floats(1...2), values.allSatisfy({ $0.isFinite && $0 >= 1 && $0 < 256 }),
                  every.contains(Int(values[0])), values.count == 1 || subdivisions.contains(Int(values[1])) else {
                return expecting(usage)
            }
            let rate = BeatRate(everyNthBeat: UInt8(values[0]), subdivision: UInt8(values.count > 1 ? values[1] : 1))
            return .events([.voiceParameter(voice: voice, .rate(rate))])
        default:
            guard let values = floats(0...1), values.allSatisfy(\.isFinite) else { return expecting("an optional velocity") }
            return .events([.voiceTrigger(voice: voice, velocity: Float(min(max(values.first ?? 1, 0), 1)))])
        }
    }
}
