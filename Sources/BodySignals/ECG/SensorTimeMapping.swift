/// A sensor's own clock placed on JACK's: a notification arrives some time after the last
/// sample it carries — the radio's and the stack's delay, never less than their least. The least
/// `arrival − sample time` seen lately is that least delay, so a sample's frame is its sensor
/// time plus it: radio jitter only ever makes a notification later, and does not move the beats.
/// The window is short enough that the two clocks' drift (tens of ppm) stays under a frame's
/// worth within it. Sensor thread (or a test).
public struct SensorTimeMapping: Sendable {
    /// Seconds of arrivals the least delay is taken over.
    public static let window = 30.0
    private var delays: [(arrival: Double, delay: Double)] = []

    public init() {}

    /// A notification whose last sample is at sensor time `sample` arrived at `arrival` (seconds, JACK's).
    public mutating func observe(sample: Double, arrival: Double) {
        delays.append((arrival, arrival - sample))
        if let first = delays.first, arrival - first.arrival > 2 * Self.window {
            delays.removeAll { arrival - $0.arrival > Self.window }
        }
    }

    /// The least delay in the window (nil before any arrival).
    public var offset: Double? {
        guard let latest = delays.last?.arrival else { return nil }
        return delays.lazy.filter { latest - $0.arrival <= Self.window }.map(\.delay).min()
    }

    public mutating func reset() { delays = [] }
}
