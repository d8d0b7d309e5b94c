import Foundation
import Realtime

/// One modulation as the process thread plays it: the setup's `Modulation` in the form the
/// thread reads (a smoothing coefficient per block, frames instead of seconds, the scale
/// points in a fixed buffer) and where it stands (the smoothed value, the value the
/// destination took, the block it last changed in, when it must be evaluated next).
package final class ModulationState {
    let source: ModulationSource
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
    /// 0 any value, 1 whole numbers, 2 off/on, 3 a scale point.
    private let stepKind: UInt8
    private let points: FixedBuffer<Float>
    /// The destination's value without it: the preset's, or the last manual change while it was on.
    var base: Float
    var enabled: Bool
    /// Which change of the world concerns it (`ModulationBank.changed`).
    let key: SourceKey

    /// The smoothed source value (NaN before the first), the value it read last (published),
    /// and the destination's value it set last (NaN: none yet).
    var smoothed = Double.nan
    var reading = Double.nan
    var output = Float.nan
    /// The control block (frame / block) the destination last changed in.
    var changedBlock: Int64 = -1
    /// The frame it must be evaluated at next (`Int64.max`: only when its source changes).
    var nextDue = Int64.max

    package init(_ modulation: Modulation, sampleRate: Int) {
        source = modulation.source
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
        switch modulation.step {
        case .continuous: stepKind = 0; points = FixedBuffer(capacity: 1, repeating: 0)
        case .integer: stepKind = 1; points = FixedBuffer(capacity: 1, repeating: 0)
        case .toggled: stepKind = 2; points = FixedBuffer(capacity: 1, repeating: 0)
        case .enumeration(let values):
            stepKind = values.isEmpty ? 0 : 3
            points = FixedBuffer(capacity: max(1, values.count), repeating: 0)
            for (index, value) in values.enumerated() { points[index] = value }
        }
        base = modulation.base
        enabled = modulation.enabled
        key = SourceKey(modulation.source)
    }

    /// Real-time safe. The source value `x` as the destination takes it: mapped, within the
    /// range, on a whole number, an end or a scale point as the control asks.
    func destinationValue(_ x: Double) -> Float {
        let value = min(max(Float(mapping.value(x)), minimum), maximum)
        switch stepKind {
        case 1: return min(max(value.rounded(), minimum.rounded(.up)), maximum.rounded(.down))
        case 2: return value >= (minimum + maximum) / 2 ? maximum : minimum
        case 3:
            var nearest = points[0]
            for index in 1..<points.capacity where abs(points[index] - value) < abs(nearest - value) { nearest = points[index] }
            return nearest
        default: return value
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
    func smooth(_ x: Double, at frame: Int64) -> (value: Double?, due: Int64) {
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

/// What kind of change in the world a source follows: a performer's heart, EEG or hands, one
/// signal, one controller.
package enum SourceKey: Equatable, BitwiseCopyable {
    case heart(UInt8), eeg(UInt8), pose(UInt8), signal(Int32), controller(UInt8)

    init(_ source: ModulationSource) {
        switch source {
        case .heart(let performer, _), .beatPhase(let performer): self = .heart(performer)
        case .eeg(let performer, _), .relaxation(let performer): self = .eeg(performer)
        case .pose(let performer, _): self = .pose(performer)
        case .signal(let index): self = .signal(index)
        case .controller(let number): self = .controller(number)
        }
    }
}
