import Realtime
/// The OSC address space: which control message each address makes. Sensor thread.
///
/// `/pulse/bpm f`, `/pulse/beat [f]`, `/pulse/rr f…`, `/voice/<name>/enable i`, `…/gain f`,
/// `…/pan f`, `…/rate i [i]`, `…/trigger [f]`, `/region/<name> [f]`, `/mode s`,
/// `/pose/hands f f f f`, `/muse/elements/<band>_absolute f…` (one float or one per sensor),
/// `/voice/<name>/insert/<n>/<symbol> f` and `/master/insert/<n>/<symbol> f` (an LV2 insert's
/// control, inserts counted from 1; the symbol `bypass` takes 0 or 1; `…/state s FOLDER` loads a
/// saved plugin state, on the control thread).
/// `/pulse/ppg …` and `/pulse/status` are handled by `OSCInput` itself. With the preset's
/// performers, `/performer/<name>/pulse/bpm`, `…/beat`, `…/rr` and `…/ppg` are that performer's heart
/// (`splitPerformer`); the unprefixed ones are the first performer's.
public struct OSCRoutes: Sendable {
    public var voices: [String: Int32]
    public var regions: [String: Int32]
    /// The region names in index order.
    public let regionNames: [String]
    /// Insert controls by address ("voice/piano/insert/1/gain", "master/insert/1/bypass").
    public var inserts: [String: InsertRoute]
    /// The preset's performers, in order (empty: one unnamed heart).
    public let performers: [String]

    public init(voices: [String], regions: [String] = [], inserts: [String: InsertRoute] = [:], performers: [String] = []) {
        regionNames = regions
        self.inserts = inserts
        self.performers = performers
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

    /// `/performer/<name>/pulse/…` → the performer's index and `/pulse/…`; nil for an address
    /// without the prefix; a nil index for an unknown name or an address a performer does not
    /// have (their heart only: bpm, beat, rr, ppg, ppg/rate).
    public func splitPerformer(_ address: String) -> (performer: UInt8?, address: String)? {
        guard address.hasPrefix("/performer/") else { return nil }
        let parts = address.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        // ["", "performer", "<name>/rest"]
        guard parts.count == 3, let slash = parts[2].firstIndex(of: "/") else { return (nil, address) }
        let name = String(parts[2][..<slash]), rest = String(parts[2][slash...])
        guard let index = performers.firstIndex(of: name),
              ["/pulse/bpm", "/pulse/beat", "/pulse/rr", "/pulse/ppg", "/pulse/ppg/rate", "/pose/hands"].contains(rest)
                || rest.hasPrefix("/muse/elements/") else {
            return (nil, address)
        }
        return (UInt8(index), rest)
    }

    public func route(_ message: OSCMessage) -> Outcome {
        let parts = message.address.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let numbers = message.numbers
        func floats(_ count: ClosedRange<Int>) -> [Double]? {
            guard let numbers, count.contains(numbers.count) else { return nil }
            return numbers
        }
        func expecting(_ what: String) -> Outcome { .badArguments("\(message.address) expects \(what)") }

        switch parts.first {
        case "pulse":
            guard parts.count == 2 else { return .unknownAddress }
            switch parts[1] {
            case "bpm":
                guard let values = floats(1...1) else { return expecting("one number (bpm)") }
                guard PlausibleHeart.accepts(bpm: values[0]) else { return .implausible("bpm \(values[0])") }
                return .events([.tempo(bpm: values[0])])
            case "beat":
                guard let values = floats(0...1) else { return expecting("an optional strength") }
                let strength = values.first ?? 1
                guard strength.isFinite else { return .implausible("strength \(strength)") }
                return .events([.heartbeat(strength: Float(min(max(strength, 0), 1)))])
            case "rr":
                guard let values = floats(1...64) else { return expecting("RR intervals in seconds") }
                let good = values.filter(PlausibleHeart.accepts(rr:))
                guard !good.isEmpty else { return .implausible("RR \(values)") }
                // The tempo the latest interval implies.
                return .events([.tempo(bpm: 60 / good.last!)])
            default: return .unknownAddress
            }
        case "voice" where parts.count == 5, "master" where parts.count == 4:
            if parts.last == "state", message.arguments.count == 1, case .string(let folder) = message.arguments[0] {
                let insert = parts.dropLast().joined(separator: "/")
                guard inserts[insert + "/bypass"] != nil, let number = Int(parts[parts.count - 2]) else { return .unknownAddress }
                return .request(.loadInsertState(place: parts[0] == "master" ? "master" : parts[1], insert: number, folder: folder))
            }
            guard let route = inserts[parts.joined(separator: "/")] else { return .unknownAddress }
            guard let values = floats(1...1), values[0].isFinite, route.accepts(Float(values[0])) else {
                return expecting("a value \(route.rangeDescription)")
            }
            return .events([.insertControl(route.address, Float(values[0]))])
        case "voice":
            guard parts.count == 3, let voice = voices[parts[1]] else { return .unknownAddress }
            switch parts[2] {
            case "enable":
                guard let values = floats(1...1) else { return expecting("0 or 1") }
                return .events([.voiceParameter(voice: voice, .enable(values[0] != 0))])
            case "gain":
                guard let values = floats(1...1), values[0].isFinite, VoiceParameterRange.gain.contains(values[0]) else {
                    return expecting("a gain \(VoiceParameterRange.describe(VoiceParameterRange.gain))")
                }
                return .events([.voiceParameter(voice: voice, .gain(Float(values[0])))])
            case "pan":
                guard let values = floats(1...1), values[0].isFinite, VoiceParameterRange.pan.contains(values[0]) else {
                    return expecting("a pan \(VoiceParameterRange.describe(VoiceParameterRange.pan))")
                }
                return .events([.voiceParameter(voice: voice, .pan(Float(values[0])))])
            case "rate":
                let every = VoiceParameterRange.every, subdivisions = VoiceParameterRange.subdivisions
                let usage = "every Nth beat \(every.lowerBound)…\(every.upperBound) [and a subdivision \(subdivisions.first!)…\(subdivisions.last!)]"
                // Numbers are truncated, as an OSC app sending 2.0 for "every 2nd beat" means.
                guard let values = floats(1...2), values.allSatisfy({ $0.isFinite && $0 >= 1 && $0 < 256 }),
                      every.contains(Int(values[0])), values.count == 1 || subdivisions.contains(Int(values[1])) else {
                    return expecting(usage)
                }
                let rate = BeatRate(everyNthBeat: UInt8(values[0]), subdivision: UInt8(values.count > 1 ? values[1] : 1))
                return .events([.voiceParameter(voice: voice, .rate(rate))])
            case "trigger":
                guard let values = floats(0...1), values.allSatisfy(\.isFinite) else { return expecting("an optional velocity") }
                return .events([.voiceTrigger(voice: voice, velocity: Float(min(max(values.first ?? 1, 0), 1)))])
            default: return .unknownAddress
            }
        case "region":
            guard parts.count == 2, let region = regions[parts[1]] else { return .unknownAddress }
            guard let values = floats(0...1), values.allSatisfy(\.isFinite) else { return expecting("an optional velocity") }
            return .events([.regionHit(region: region, velocity: Float(min(max(values.first ?? 1, 0), 1)))])
        case "mode":
            guard parts.count == 1 else { return .unknownAddress }
            guard message.arguments.count == 1, case .string(let name) = message.arguments[0],
                  let mode = PerformanceMode.allCases.first(where: { "\($0)" == name }) else {
                return expecting("freestyle, recording or playing")
            }
            return .events([.modeChange(mode)])
        case "pose":
            guard parts.count == 2, parts[1] == "hands" else { return .unknownAddress }
            guard let values = floats(4...4), values.allSatisfy(\.isFinite) else { return expecting("four numbers: lx ly rx ry") }
            return .events([.pose(leftX: Float(values[0]), leftY: Float(values[1]), rightX: Float(values[2]), rightY: Float(values[3]))])
        case "muse":
            guard parts.count == 3, parts[1] == "elements", parts[2].hasSuffix("_absolute"),
                  let band = EEGBand.allCases.first(where: { "\($0.name)_absolute" == parts[2] }) else { return .unknownAddress }
            guard let values = floats(1...4) else { return expecting("one number, or one per sensor") }
            let finite = values.filter(\.isFinite)
            guard !finite.isEmpty else { return .implausible("no finite band power") }
            return .events([.bandPower(band, Float(finite.reduce(0, +) / Double(finite.count)))])
        default:
            return .unknownAddress
        }
    }
}
