/// The RR intervals one heart-rate notification carried (the times between the heart's last
/// beats, in 1/1024 s as the Heart Rate Service sends them), in a fixed value that copies into
/// a ring without allocating. A default 23-byte ATT payload holds at most 9.
public struct RRIntervals: Sendable, Equatable, BitwiseCopyable {
    public static let capacity = 9
    public private(set) var count: UInt8
    private var storage: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16)

    /// Nil when there are more than `capacity`.
    public init?(_ values: some Collection<UInt16>) {
        guard values.count <= Self.capacity else { return nil }
        count = UInt8(values.count)
        storage = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &storage) { raw in
            for (index, value) in values.enumerated() { raw.storeBytes(of: value, toByteOffset: index * 2, as: UInt16.self) }
        }
    }

    /// The intervals in 1/1024 s.
    public var values: [UInt16] {
        withUnsafeBytes(of: storage) { raw in (0..<Int(count)).map { raw.load(fromByteOffset: $0 * 2, as: UInt16.self) } }
    }

    /// `units` (1/1024 s) in as many values as they need, each at most `capacity` long.
    public static func chunks(_ units: some Collection<UInt16>) -> [RRIntervals] {
        let all = Array(units)
        return stride(from: 0, to: all.count, by: capacity).map { RRIntervals(all[$0..<min($0 + capacity, all.count)])! }
    }

    /// `seconds` in the Heart Rate Service's 1/1024 s (rounded, within a UInt16), in as many values
    /// as they need; a value that is no number of seconds (NaN, infinite) is left out.
    public static func chunks(seconds: [Double]) -> [RRIntervals] {
        chunks(seconds.compactMap { Int64(checkedRounding: $0 * 1024).map { UInt16(clamping: $0) } })
    }

    /// Real-time safe. Interval `number` in seconds (exact: k/1024).
    public func seconds(at number: Int) -> Double {
        withUnsafeBytes(of: storage) { Double($0.load(fromByteOffset: number * 2, as: UInt16.self)) / 1024 }
    }

    /// The intervals in seconds (exact: k/1024).
    public var seconds: [Double] { values.map { Double($0) / 1024 } }

    public static func == (lhs: RRIntervals, rhs: RRIntervals) -> Bool { lhs.values == rhs.values }
}
