import Foundation

/// A source's value onto a destination's: `from` (clamped) onto `to`, along a curve. A reversed
/// range inverts. `linear`; `exp`: equal steps of the source multiply the destination by equal
/// ratios (a cutoff, a pitch: `to` both above 0); `log`: equal ratios of the source are equal
/// steps (a power, a rate: `from` both above 0); `smooth`: smoothstep, gentle at both ends.
public struct ModulationMapping: Sendable, Equatable, BitwiseCopyable {
    public enum Curve: String, Sendable, CaseIterable, BitwiseCopyable { case linear, exp, log, smooth }

    public var from: (low: Double, high: Double)
    public var to: (low: Double, high: Double)
    public var curve: Curve

    public init(from: (Double, Double), to: (Double, Double), curve: Curve = .linear) {
        self.from = from
        self.to = to
        self.curve = curve
    }

    /// Why these ranges cannot be mapped along the curve, or nil.
    public var problem: String? {
        guard [from.low, from.high, to.low, to.high].allSatisfy(\.isFinite) else { return "ranges must be finite numbers" }
        guard from.low != from.high else { return "from_range needs two different values" }
        if curve == .exp && !(to.low > 0 && to.high > 0) { return "curve exp needs a to_range above 0 (equal ratios); use smooth or linear" }
        if curve == .log && !(from.low > 0 && from.high > 0) { return "curve log needs a from_range above 0 (equal ratios); use smooth or linear" }
        return nil
    }

    /// Real-time safe. `x` within `from` (whichever way it runs): what a source says beyond its
    /// range is its range's end before anything remembers it (the glide, the one-pole).
    @inline(__always)
    public func clampedSource(_ x: Double) -> Double { min(max(x, min(from.low, from.high)), max(from.low, from.high)) }

    /// Real-time safe. The source value `x` mapped.
    public func value(_ x: Double) -> Double {
        let low = min(from.low, from.high), high = max(from.low, from.high)
        let clamped = min(max(x, low), high)
        var position: Double
        if curve == .log {
            position = Foundation.log(clamped / from.low) / Foundation.log(from.high / from.low)
        } else {
            position = (clamped - from.low) / (from.high - from.low)
        }
        position = min(max(position, 0), 1)
        switch curve {
        case .linear, .log: return to.low + (to.high - to.low) * position
        case .exp: return to.low * pow(to.high / to.low, position)
        case .smooth: return to.low + (to.high - to.low) * position * position * (3 - 2 * position)
        }
    }

    public static func == (lhs: ModulationMapping, rhs: ModulationMapping) -> Bool {
        lhs.from == rhs.from && lhs.to == rhs.to && lhs.curve == rhs.curve
    }
}
