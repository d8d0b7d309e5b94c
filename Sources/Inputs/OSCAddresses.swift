/// Every OSC address pulsejack takes, in one table: its pattern, its arguments and what it does
/// (as docs/osc.md's table shows them — a test holds the two together), whether a performer may
/// send it under `/performer/<name>`, whether the live page may, and who handles it: the
/// `OSCRoutes` handler that makes its control messages, or the OSC input itself. A new address
/// is one entry here. The routes, the OSC input's own addresses, the performer prefix and the
/// page all read it.
public enum OSCAddresses {
    /// What an address does, by name (`OSCInput` switches over its own).
    public enum Kind: String, CaseIterable, Sendable {
        case bpm, beat, rr, ppg, ppgRate, voiceEnable, voiceGain, voicePan, voiceRate, voiceTrigger, insertControl, insertState, insertPreset
        case region, mode, hands, bandPower, signal, modulationEnable, status, meterSubscribe, meterUnsubscribe
    }

    /// One entry of the table.
    public struct Entry: Sendable {
        public let kind: Kind
        /// The address patterns ("/voice/<name>/gain"): placeholders in angle brackets.
        public let patterns: [String]
        /// The arguments as docs/osc.md writes them ("f", "[f strength]").
        public let arguments: String
        /// Under `/performer/<name>` too: that performer's heart, hands and mood.
        public let perPerformer: Bool
        /// Offered to the live page (not the sensor streams, which need the OSC input's
        /// detectors, nor file loads, nor the replies an OSC sender asks for).
        public let fromPage: Bool
        /// What makes its control messages for the engine; nil: handled by `OSCInput` itself (it
        /// replies, or feeds its detectors).
        public let route: OSCRoutes.Handler?
        /// Handled by `OSCInput` itself, not routed to the engine.
        public var byInput: Bool { route == nil }
    }

    public static let all: [Entry] = [
        Entry(kind: .bpm, patterns: ["/pulse/bpm"], arguments: "f", perPerformer: true, fromPage: true, route: OSCRoutes.bpm),
        Entry(kind: .beat, patterns: ["/pulse/beat"], arguments: "[f strength]", perPerformer: true, fromPage: true, route: OSCRoutes.beat),
        Entry(kind: .rr, patterns: ["/pulse/rr"], arguments: "f…", perPerformer: true, fromPage: true, route: OSCRoutes.rr),
        Entry(kind: .ppg, patterns: ["/pulse/ppg"], arguments: "f…", perPerformer: true, fromPage: false, route: nil),
        Entry(kind: .ppgRate, patterns: ["/pulse/ppg/rate"], arguments: "f", perPerformer: true, fromPage: false, route: nil),
        Entry(kind: .voiceEnable, patterns: ["/voice/<name>/enable"], arguments: "i", perPerformer: false, fromPage: true, route: OSCRoutes.voiceEnable),
        Entry(kind: .voiceGain, patterns: ["/voice/<name>/gain"], arguments: "f", perPerformer: false, fromPage: true, route: OSCRoutes.voiceGain),
        Entry(kind: .voicePan, patterns: ["/voice/<name>/pan"], arguments: "f", perPerformer: false, fromPage: true, route: OSCRoutes.voicePan),
        Entry(kind: .voiceRate, patterns: ["/voice/<name>/rate"], arguments: "i [i]", perPerformer: false, fromPage: true, route: OSCRoutes.voiceRate),
        Entry(kind: .voiceTrigger, patterns: ["/voice/<name>/trigger"], arguments: "[f velocity]", perPerformer: false, fromPage: true,
              route: OSCRoutes.voiceTrigger),
        Entry(kind: .insertControl, patterns: ["/voice/<name>/insert/<n>/<symbol>", "/master/insert/<n>/<symbol>"], arguments: "f",
              perPerformer: false, fromPage: true, route: OSCRoutes.insertControl),
        Entry(kind: .insertState, patterns: ["/voice/<name>/insert/<n>/state", "/master/insert/<n>/state"], arguments: "s folder",
              perPerformer: false, fromPage: false, route: OSCRoutes.insertState),
        Entry(kind: .insertPreset, patterns: ["/voice/<name>/insert/<n>/preset", "/master/insert/<n>/preset"], arguments: "s name",
              perPerformer: false, fromPage: false, route: OSCRoutes.insertPreset),
        Entry(kind: .region, patterns: ["/region/<name>"], arguments: "[f velocity]", perPerformer: false, fromPage: true, route: OSCRoutes.region),
        Entry(kind: .mode, patterns: ["/mode"], arguments: "s", perPerformer: false, fromPage: true, route: OSCRoutes.mode),
        Entry(kind: .hands, patterns: ["/pose/hands"], arguments: "f f f f", perPerformer: true, fromPage: false, route: OSCRoutes.hands),
        Entry(kind: .bandPower, patterns: ["/muse/elements/<band>_absolute"], arguments: "f or f f f f", perPerformer: true,
              fromPage: false, route: OSCRoutes.bandPower),
        Entry(kind: .signal, patterns: ["/signal/<name>"], arguments: "f", perPerformer: false, fromPage: false, route: OSCRoutes.signal),
        Entry(kind: .modulationEnable, patterns: ["/modulation/<n>/enable"], arguments: "i", perPerformer: false, fromPage: true,
              route: OSCRoutes.modulationEnable),
        Entry(kind: .status, patterns: ["/pulse/status"], arguments: "", perPerformer: false, fromPage: false, route: nil),
        Entry(kind: .meterSubscribe, patterns: ["/meter/subscribe"], arguments: "[i port]", perPerformer: false, fromPage: false,
              route: nil),
        Entry(kind: .meterUnsubscribe, patterns: ["/meter/unsubscribe"], arguments: "[i port]", perPerformer: false, fromPage: false,
              route: nil),
    ]

    /// The entry of `kind`.
    public static func entry(_ kind: Kind) -> Entry { all.first { $0.kind == kind }! }

    /// An address matched against the table: its entry, and what its placeholders hold
    /// ("name", "n", "symbol", "band"; `master` for the master's inserts).
    public struct Match: Sendable {
        public let entry: Entry
        public let captures: [String: String]
    }

    /// The entry `address` is an instance of, if any. A literal segment wins over a placeholder
    /// (`…/insert/1/state` is a state load, not a control named "state").
    public static func match(_ address: String) -> Match? {
        let parts = address.split(separator: "/", omittingEmptySubsequences: false)
        var best: (pattern: Pattern, literals: Int)?
        for pattern in patterns where pattern.segments.count == parts.count && pattern.literals > (best?.literals ?? -1) {
            if pattern.matches(parts) { best = (pattern, pattern.literals) }
        }
        guard let pattern = best?.pattern else { return nil }
        return Match(entry: all[pattern.entry], captures: pattern.captures(parts))
    }

    /// A pattern split once into its segments, for matching many addresses.
    private struct Pattern: Sendable {
        enum Segment: Sendable {
            case literal(String)
            case placeholder(name: String, prefix: String, suffix: String)
        }
        let entry: Int
        let segments: [Segment]
        let literals: Int
        let isMaster: Bool

        init(entry: Int, _ text: String) {
            self.entry = entry
            isMaster = text.hasPrefix("/master/")
            segments = text.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                guard let open = segment.firstIndex(of: "<"), let close = segment.firstIndex(of: ">") else { return .literal(String(segment)) }
                return .placeholder(name: String(segment[segment.index(after: open)..<close]), prefix: String(segment[..<open]),
                                    suffix: String(segment[segment.index(after: close)...]))
            }
            literals = segments.filter { if case .literal = $0 { true } else { false } }.count
        }

        func matches(_ parts: [Substring]) -> Bool {
            for (segment, part) in zip(segments, parts) {
                switch segment {
                case .literal(let text): if part != text { return false }
                case .placeholder(_, let prefix, let suffix):
                    if !(part.hasPrefix(prefix) && part.hasSuffix(suffix) && part.count > prefix.count + suffix.count) { return false }
                }
            }
            return true
        }

        func captures(_ parts: [Substring]) -> [String: String] {
            var captures: [String: String] = isMaster ? ["master": "master"] : [:]
            for (segment, part) in zip(segments, parts) {
                if case .placeholder(let name, let prefix, let suffix) = segment {
                    captures[name] = String(part.dropFirst(prefix.count).dropLast(suffix.count))
                }
            }
            return captures
        }
    }

    private static let patterns: [Pattern] = all.enumerated().flatMap { index, entry in entry.patterns.map { Pattern(entry: index, $0) } }
}
