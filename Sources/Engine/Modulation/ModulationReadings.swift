import Atomics

/// What the process thread publishes of each modulation at the end of a period, for the status,
/// the page and the OSC meters: its source's value, its destination's value and whether it is
/// on. Any thread reads it. One block of atomics, not an object each: the process thread's
/// stores touch no reference count.
// @unchecked: the storage is written only through atomics, allocated in init and freed in deinit.
public final class ModulationReadings: @unchecked Sendable {
    /// Per modulation: the source value's bits high, the destination value's low (NaN: none
    /// yet); and whether it is on (1) or off (0).
    private let values: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    private let switches: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>
    public let count: Int

    init(count: Int) {
        self.count = count
        let nothing = UInt64(Float.nan.bitPattern) << 32 | UInt64(Float.nan.bitPattern)
        values = .allocate(capacity: max(1, count))
        values.initialize(repeating: .init(nothing), count: max(1, count))
        switches = .allocate(capacity: max(1, count))
        switches.initialize(repeating: .init(1), count: max(1, count))
    }

    deinit {
        values.deallocate()
        switches.deallocate()
    }

    /// Real-time safe.
    func store(_ index: Int, reading: Float, output: Float, enabled: Bool) {
        UnsafeAtomic<UInt64>(at: values + index).store(UInt64(reading.bitPattern) << 32 | UInt64(output.bitPattern), ordering: .relaxed)
        UnsafeAtomic<Int>(at: switches + index).store(enabled ? 1 : 0, ordering: .relaxed)
    }

    /// Modulation `index`'s source and destination values (NaN: none yet) and whether it is on.
    public func reading(_ index: Int) -> (source: Float, destination: Float, enabled: Bool) {
        precondition(index >= 0 && index < count, "modulation \(index) of \(count)")
        let bits = UnsafeAtomic<UInt64>(at: values + index).load(ordering: .relaxed)
        return (Float(bitPattern: UInt32(bits >> 32)), Float(bitPattern: UInt32(truncatingIfNeeded: bits)),
                UnsafeAtomic<Int>(at: switches + index).load(ordering: .relaxed) != 0)
    }
}

/// Each heart's variability as the process thread publishes it at every interval: RMSSD and
/// SDNN in ms and breaths a minute (NaN until known). Any thread reads it.
public final class VariabilityReadings: Sendable {
    private let spreads: [ManagedAtomic<UInt64>]
    private let breaths: [ManagedAtomic<UInt64>]

    init(hearts: Int) {
        let nothing = UInt64(Float.nan.bitPattern) << 32 | UInt64(Float.nan.bitPattern)
        spreads = (0..<hearts).map { _ in ManagedAtomic(nothing) }
        breaths = (0..<hearts).map { _ in ManagedAtomic(Double.nan.bitPattern) }
    }

    /// Real-time safe.
    func store(_ heart: Int, rmssd: Double, sdnn: Double, breathRate: Double) {
        spreads[heart].store(UInt64(Float(rmssd).bitPattern) << 32 | UInt64(Float(sdnn).bitPattern), ordering: .relaxed)
        breaths[heart].store(breathRate.bitPattern, ordering: .relaxed)
    }

    /// Heart `index`'s RMSSD and SDNN (ms) and breathing rate (breaths a minute); nil until known.
    public func reading(_ heart: Int) -> (rmssd: Double?, sdnn: Double?, breathRate: Double?) {
        let bits = spreads[heart].load(ordering: .relaxed)
        let rmssd = Double(Float(bitPattern: UInt32(bits >> 32))), sdnn = Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
        let breath = Double(bitPattern: breaths[heart].load(ordering: .relaxed))
        return (rmssd.isNaN ? nil : rmssd, sdnn.isNaN ? nil : sdnn, breath.isNaN ? nil : breath)
    }
}
