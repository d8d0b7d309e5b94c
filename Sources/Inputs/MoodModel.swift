import Realtime
/// MusicMood's mood from EEG: each band power (0…1) averaged over a sliding window, matched
/// against mood ranges in order; the first range that holds names the mood. No data: undefined.
public struct MoodModel: Sendable {
    /// Where a band's average must lie: at least `atLeast` and below `below` (either optional).
    public struct Bounds: Sendable, Equatable {
        public var atLeast: Double?
        public var below: Double?
        public init(atLeast: Double? = nil, below: Double? = nil) {
            self.atLeast = atLeast
            self.below = below
        }
        public func contains(_ value: Double) -> Bool {
            (atLeast.map { value >= $0 } ?? true) && (below.map { value < $0 } ?? true)
        }
    }

    /// A mood and the band bounds it needs (a band not listed may be anything).
    public struct Range: Sendable, Equatable {
        public var mood: String
        public var bands: [EEGBand: Bounds]
        public init(mood: String, bands: [EEGBand: Bounds]) {
            self.mood = mood
            self.bands = bands
        }
    }

    /// Defaults: sad when alpha < 0.5, happy when alpha ≥ 0.5.
    public static let defaultRanges = [
        Range(mood: "sad", bands: [.alpha: Bounds(below: 0.5)]),
        Range(mood: "happy", bands: [.alpha: Bounds(atLeast: 0.5)]),
    ]

    public let window: Double
    public var ranges: [Range]
    private var samples: [EEGBand: [(time: Double, value: Double)]] = [:]

    /// `window` in seconds.
    public init(window: Double = 10, ranges: [Range] = MoodModel.defaultRanges) {
        precondition(window > 0)
        self.window = window
        self.ranges = ranges
    }

    /// Adds a band power measured at `time` (seconds); values outside 0…1 or not finite are ignored.
    public mutating func add(_ band: EEGBand, _ value: Double, at time: Double) {
        guard value.isFinite, (0...1).contains(value) else { return }
        samples[band, default: []].append((time, value))
        // Keep only the window ending at the latest sample of any band.
        let latest = samples.values.compactMap { $0.last?.time }.max() ?? time
        for key in samples.keys { samples[key]!.removeAll { $0.time <= latest - window } }
    }

    /// The mean of `band` over the window, or nil with no data.
    public func average(_ band: EEGBand) -> Double? {
        guard let values = samples[band], !values.isEmpty else { return nil }
        return values.map(\.value).reduce(0, +) / Double(values.count)
    }

    /// The current mood, or nil (undefined) when no range holds or a needed band has no data.
    public var mood: String? {
        ranges.first { range in
            range.bands.allSatisfy { band, bounds in average(band).map { bounds.contains($0) } ?? false }
        }?.mood
    }
}
