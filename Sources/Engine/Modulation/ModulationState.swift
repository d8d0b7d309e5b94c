import Foundation
import Realtime

/// One modulation as the process thread plays it: a plain value in the bank's contiguous
/// storage (no reference in it). The setup's `Modulation` in the form the thread reads (a
/// smoothing coefficient per block, frames instead of seconds, its scale points as a range of
/// the bank's), and where it stands (the smoothed value, the value the destination took, the
/// block it last changed in, when it must be evaluated next).
struct ModulationState: BitwiseCopyable {
    let source: ModulationSource
    /// The source's place among the bank's distinct sources (each read once per evaluation pass).
    let sourceSlot: Int32
    let destination: ModulationDestination
    let mapping: ModulationMapping
    /// The one-pole's step per control block: 1 − exp(−block / (smooth · rate)); 0: no smoothing.
    let smoothing: Double
    /// A quiet source's glide: its target, its length and (not a heart's) the silence before it, in frames.
    let dropoutValue: Double
    let glideFrames: Double
    let quietAfterFrames: Int64
    let glides: Bool
    let minimum: Float
    let maximum: Float
    let step: ModulationStep
    /// Its scale points: `points[firstPoint ..< firstPoint + pointCount]` of the bank's.
    let firstPoint: Int32
    let pointCount: Int32

    /// The destination's value without it: the preset's, or the last manual change while it was on.
    var base: Float
    var enabled: Bool
    /// The smoothed source value (NaN before the first), the value it read last (published),
    /// and the destination's value it set last (NaN: none yet).
    var smoothed = Double.nan
    var reading = Double.nan
    var output = Float.nan
    /// The control block (frame / block) the destination last changed in.
    var changedBlock: Int64 = -1
    /// The frame it must be evaluated at next (`Int64.max`: only when its source changes).
    var nextDue = Int64.max

    /// Control thread.
    init(_ modulation: Modulation, sampleRate: Int, sourceSlot: Int32, firstPoint: Int32) {
        source = modulation.source
        self.sourceSlot = sourceSlot
        destination = modulation.destination
        mapping = modulation.mapping
        smoothing = modulation.smoothSeconds > 0
            ? 1 - exp(-Double(Modulation.blockFrames) / (modulation.smoothSeconds * Double(sampleRate))) : 0
        dropoutValue = modulation.dropout.map { modulation.mapping.clampedSource($0.value) } ?? .nan
        glideFrames = max(1, (modulation.dropout?.seconds ?? 0) * Double(sampleRate))
        quietAfterFrames = Int64(((modulation.dropout?.after ?? 0) * Double(sampleRate)).rounded())
        glides = modulation.dropout != nil
        minimum = modulation.minimum
        maximum = modulation.maximum
        step = ModulationStep(modulation.step)
        self.firstPoint = firstPoint
        pointCount = Int32(modulation.step.points.count)
        base = modulation.base
        enabled = modulation.enabled
    }

    /// Real-time safe. The source value `x` as the destination takes it: mapped, within the
    /// range, on a whole number, an end or a scale point (of `points`, the bank's) as the control asks.
    func destinationValue(_ x: Double, points: UnsafePointer<Float>) -> Float {
        let value = min(max(Float(mapping.value(x)), minimum), maximum)
        switch step {
        case .continuous: return value
        case .integer: return min(max(value.rounded(), minimum.rounded(.up)), maximum.rounded(.down))
        case .toggled: return value >= (minimum + maximum) / 2 ? maximum : minimum
        case .scalePoint:
            let first = Int(firstPoint)
            var nearest = points[first]
            for index in first + 1 ..< first + Int(pointCount) where abs(points[index] - value) < abs(nearest - value) {
                nearest = points[index]
            }
            return nearest
        }
    }

    /// Real-time safe. When a dropout makes it due again: each block while it glides, and (not a
    /// heart's source, which the dropout watch announces) the block where its silence would begin.
    func dueForDropout(lastValue: Int64, quietSince: Int64?, at frame: Int64) -> Int64 {
        guard glides else { return .max }
        if let quietSince { return Double(frame - quietSince) < glideFrames ? ModulationBank.nextBlock(after: frame) : .max }
        guard !source.isHeart, lastValue >= 0 else { return .max }
        return ModulationBank.boundary(atOrAfter: max(frame + 1, lastValue + quietAfterFrames))
    }

    /// Real-time safe. The one-pole one block on at a block boundary (from `x` itself at its first
    /// value), when it is due again (each block until it rests on `x`); between boundaries, only
    /// the next boundary. Nil before its first value.
    mutating func smooth(_ x: Double, at frame: Int64) -> (value: Double?, due: Int64) {
        guard frame % ModulationBank.block == 0 else {
            return (smoothed.isNaN ? nil : smoothed, ModulationBank.boundary(atOrAfter: frame))
        }
        smoothed = smoothed.isNaN ? x : smoothed + smoothing * (x - smoothed)
        if abs(x - smoothed) <= 1e-9 * max(1, abs(x)) {
            smoothed = x
            return (smoothed, .max)
        }
        return (smoothed, ModulationBank.nextBlock(after: frame))
    }

    /// Real-time safe. The source's value at `frame` with the dropout's glide: `held` is the
    /// last value (within the source's range), `quietSince` when the source went quiet (nil: it
    /// is not); at the glide's end exactly the dropout's value.
    func glided(_ held: Double, quietSince: Int64?, at frame: Int64) -> Double {
        guard glides, let quietSince, frame >= quietSince else { return held }
        let progress = Double(frame - quietSince) / glideFrames
        return progress >= 1 ? dropoutValue : held + (dropoutValue - held) * progress
    }
}

/// How a destination takes values, as the process thread reads it: `ControlStep` without its
/// scale points (they are the bank's).
enum ModulationStep: UInt8, BitwiseCopyable {
    case continuous, integer, toggled, scalePoint

    init(_ step: ControlStep) {
        switch step {
        case .continuous: self = .continuous
        case .integer: self = .integer
        case .toggled: self = .toggled
        case .enumeration(let values): self = values.isEmpty ? .continuous : .scalePoint
        }
    }
}

extension ControlStep {
    /// Its scale points (none but an enumeration's).
    var points: [Float] {
        if case .enumeration(let values) = self { return values }
        return []
    }
}
