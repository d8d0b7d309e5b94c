import Realtime
/// What the process thread tells a live picture (the web page) beside fired voices: each
/// heartbeat, region hit and mode change, at its frame. Sent through a ring (`observe(into:)`).
public struct EngineObservation: Sendable, Equatable, BitwiseCopyable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// A heartbeat: the clock's beat, or an explicit `/pulse/beat`.
        case beat
        /// `index` is the region.
        case regionHit
        /// `index` is the new `PerformanceMode`'s raw value.
        case mode
    }

    public var kind: Kind
    public var index: Int32
    public var frame: Int64
    /// The beat's strength or the hit's velocity.
    public var value: Float

    public init(kind: Kind, index: Int32, frame: Int64, value: Float) {
        self.kind = kind
        self.index = index
        self.frame = frame
        self.value = value
    }
}
