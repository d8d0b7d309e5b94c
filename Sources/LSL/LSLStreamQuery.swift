import Inputs
import UserFiles

/// Which LSL stream a run reads, as the command line or a preset names it: `lsl:NAME` (the
/// stream with that name), or `lsl:type=ECG`, `lsl:name=Muse,type=EEG` (any of `name`, `type`,
/// `source_id`, `hostname`), and `channel=LABEL` to read one channel of several (a PPG stream's
/// `PPG2`). Whose it is and what it is to them: a performer's heart or EEG, markers, or the
/// stream a modulation's `lsl.STREAM.CHANNEL` reads.
public struct LSLStreamQuery: Equatable, Sendable, CustomStringConvertible {
    public enum Role: String, Sendable {
        /// A heart: an ECG (R-peaks), a PPG (pulse upstrokes) or an RR/IBI stream (intervals).
        case heart
        /// Raw EEG: band powers and the mood.
        case eeg
        /// Strings `voice/NAME` and `region/NAME`, fired at their time stamps' frames.
        case markers
        /// Channels that modulations read (`lsl.STREAM.CHANNEL`).
        case signals
    }

    public static let properties = ["name", "type", "source_id", "hostname"]

    public var role: Role
    /// Property → value, in the order given.
    public var match: [(String, String)]
    /// One channel's label (or number), when the stream has several and one is meant.
    public var channel: String?
    public var performer: Int

    public static func == (a: Self, b: Self) -> Bool {
        a.role == b.role && a.channel == b.channel && a.performer == b.performer
            && a.match.map { $0.0 + "=" + $0.1 } == b.match.map { $0.0 + "=" + $0.1 }
    }

    public init(role: Role, name: String, performer: Int = 0) {
        self.role = role
        match = [("name", name)]
        self.performer = performer
    }

    /// Whether `spec` means an LSL stream (`lsl:…`).
    public static func names(_ spec: String) -> Bool { spec.lowercased().hasPrefix("lsl:") }

    /// The stream a preset's or an option's `lsl:` spec names, read as its role's body; one that
    /// does not parse is the error naming the preset's line and field.
    public init(_ spec: SensorSpec) throws(InputError) {
        self = try spec.resolved { spec in try LSLStreamQuery(parsing: spec.text, role: spec.role == .heart ? .heart : .eeg, performer: spec.performer) }
    }

    /// Parses `lsl:NAME` or `lsl:KEY=VALUE[,KEY=VALUE…]`.
    public init(parsing spec: String, role: Role, performer: Int = 0) throws(LSLError) {
        guard Self.names(spec) else { throw LSLError("'\(spec)' is not an LSL stream: expected lsl:NAME or lsl:type=TYPE") }
        let rest = spec.dropFirst(4).trimmingCharacters(in: .whitespaces)
        self.role = role
        self.performer = performer
        match = []
        guard !rest.isEmpty else { throw LSLError("'\(spec)': name the stream (lsl:NAME, lsl:type=ECG)") }
        if !rest.contains("=") {
            match = [("name", rest)]
        } else {
            for pair in rest.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[1].isEmpty else { throw LSLError("'\(spec)': '\(pair)' is not KEY=VALUE") }
                let key = parts[0].lowercased()
                if key == "channel" {
                    channel = parts[1]
                } else if Self.properties.contains(key) {
                    match.append((key, parts[1]))
                } else {
                    throw LSLError("'\(spec)': '\(key)' is not one of \((Self.properties + ["channel"]).joined(separator: ", "))")
                }
            }
            guard !match.isEmpty else { throw LSLError("'\(spec)': name the stream by name, type, source_id or hostname") }
        }
        for (_, value) in match where value.contains("'") {
            throw LSLError("'\(spec)': a stream's \(match.first!.0) may not contain a quote")
        }
    }

    /// LSL's XPath predicate for its resolver (`lsl_create_continuous_resolver_bypred`).
    public var predicate: String { match.map { "\($0.0)='\($0.1)'" }.joined(separator: " and ") }

    public var description: String {
        "lsl:" + (match.count == 1 && match[0].0 == "name" && channel == nil ? match[0].1
            : (match.map { "\($0.0)=\($0.1)" } + (channel.map { ["channel=\($0)"] } ?? [])).joined(separator: ","))
    }
}
