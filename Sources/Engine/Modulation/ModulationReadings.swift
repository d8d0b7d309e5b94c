import Atomics

/// What the process thread publishes of each modulation at the end of a period, for the status,
/// the page and the OSC meters: its source's value, its destination's value and whether it is
/// on. Any thread reads it.
public final class ModulationReadings: Sendable {
    /// Per modulation: the source value's bits high, the destination value's low (NaN: none yet).
    private let values: [ManagedAtomic<UInt64>]
    private let switches: [ManagedAtomic<Bool>]
    public var count: Int { values.count }

    init(count: Int) {
        let nothing = UInt64(Float.nan.bitPattern) << 32 | UInt64(Float.nan.bitPattern)
        values = (0..<count).map { _ in ManagedAtomic(nothing) }
        switches = (0..<count).map { _ in ManagedAtomic(true) }
    }

    /// Real-time safe.
    func store(_ index: Int, reading: Float, output: Float, enabled: Bool) {
        values[index].store(UInt64(reading.bitPattern) << 32 | UInt64(output.bitPattern), ordering: .relaxed)
        switches[index].store(enabled, ordering: .relaxed)
    }

    /// Modulation `index`'s source and destination values (NaN: none yet) and whether it is on.
    public func reading(_ index: Int) -> (source: Float, destination: Float, enabled: Bool) {
        let bits = values[index].load(ordering: .relaxed)
        return (Float(bitPattern: UInt32(bits >> 32)), Float(bitPattern: UInt32(truncatingIfNeeded: bits)),
                switches[index].load(ordering: .relaxed))
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
