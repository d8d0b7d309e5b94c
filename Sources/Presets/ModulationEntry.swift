/// One entry of a preset's `modulations:` list, as written:
///
///     modulations:
///       - from: heart.bpm                 # a source (`pulsejack voices --modulations` lists them)
///         to: voice.pad.insert.1.cutoff   # a destination
///         from_range: [60, 140]           # source values mapped (clamped) …
///         to_range: [400, 4000]           # … onto this range; a reversed range inverts
///         curve: exp                      # linear (default) | exp | log | smooth
///         smooth: 0.5                     # seconds (one-pole); 0 (default): none
///         on_dropout: {value: 70, seconds: 4}   # a quiet source glides here; default: it holds
///         enabled: false                  # starts off (the page, /modulation/N/enable)
public struct ModulationEntry: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    /// Default: the source's own range (`ModulationSources`).
    public var fromRange: [Double]?
    /// Default: the destination's range (a gain 0…1, a pan −1…1, a plugin control its port's).
    public var toRange: [Double]?
    public var curve: String?
    public var smooth: Double?
    public var onDropout: OnDropout?
    public var enabled: Bool?

    public struct OnDropout: Codable, Sendable, Equatable {
        /// The source value it glides to, in the source's units.
        public var value: Double
        /// Seconds the glide takes (default 2).
        public var seconds: Double?
        /// A source that is not a heart's: seconds without a value before it counts as quiet (default 2).
        public var after: Double?

        public init(value: Double, seconds: Double? = nil, after: Double? = nil) {
            self.value = value
            self.seconds = seconds
            self.after = after
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case value, seconds, after }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case from, to, fromRange = "from_range", toRange = "to_range", curve, smooth, onDropout = "on_dropout", enabled
    }

    public init(from: String, to: String, fromRange: [Double]? = nil, toRange: [Double]? = nil, curve: String? = nil,
                smooth: Double? = nil, onDropout: OnDropout? = nil, enabled: Bool? = nil) {
        self.from = from
        self.to = to
        self.fromRange = fromRange
        self.toRange = toRange
        self.curve = curve
        self.smooth = smooth
        self.onDropout = onDropout
        self.enabled = enabled
    }
}
