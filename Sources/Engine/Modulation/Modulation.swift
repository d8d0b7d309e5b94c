/// One modulation as a preset asks for it, resolved: its source, its destination with the
/// values that destination takes, the mapping, the smoothing and what a dropout does. Part of
/// an `EngineSetup`; the process thread plays it as a `ModulationState`.
public struct Modulation: Sendable {
    /// Its source and destination as the preset wrote them: "heart.bpm", "voice.pad.insert.1.cutoff".
    public var from: String
    public var to: String
    /// "heart.bpm → voice.pad.insert.1.cutoff" (status, page).
    public var name: String { "\(from) → \(to)" }
    public var source: ModulationSource
    public var destination: ModulationDestination
    public var mapping: ModulationMapping
    /// Seconds: the one-pole's time constant (0: none).
    public var smoothSeconds: Double
    public var dropout: Dropout?
    /// The destination's range (a mapped value is clamped into it) and the values it takes.
    public var minimum: Float
    public var maximum: Float
    public var step: ControlStep
    /// The destination's value without the modulation: where it goes when switched off.
    public var base: Float
    /// Whether it starts on.
    public var enabled: Bool

    /// What a quiet source does instead of holding its last value: glides to `value` (in the
    /// source's units) over `seconds`. A heart's source is quiet during the heart's dropout; any
    /// other once no value has come for `after` seconds.
    public struct Dropout: Sendable, Equatable {
        public var value: Double
        public var seconds: Double
        public var after: Double

        public init(value: Double, seconds: Double, after: Double = 2) {
            self.value = value
            self.seconds = seconds
            self.after = after
        }
    }

    public init(from: String, to: String, source: ModulationSource, destination: ModulationDestination, mapping: ModulationMapping,
                smoothSeconds: Double = 0, dropout: Dropout? = nil, minimum: Float, maximum: Float, step: ControlStep = .continuous,
                base: Float, enabled: Bool = true) {
        self.from = from
        self.to = to
        self.source = source
        self.destination = destination
        self.mapping = mapping
        self.smoothSeconds = smoothSeconds
        self.dropout = dropout
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.base = base
        self.enabled = enabled
    }

    /// Frames in a control block: a destination changes at most once in each, at its frame
    /// boundaries (multiples of it from the engine's frame 0) or at a source's own frame.
    public static let blockFrames: Int64 = 32
}
