import Inputs
import Realtime

/// One period's raw levels per output channel, measured on the process thread.
public struct MeterBlock: Sendable, BitwiseCopyable {
    public var peakLeft: Float = 0, peakRight: Float = 0
    /// Sums of squares, for the mean-square (RMS) level.
    public var squaresLeft: Float = 0, squaresRight: Float = 0
    public var frames: Int32 = 0
    /// Samples that were not finite (NaN, ±Inf): counted, and left out of the levels rather than
    /// read as silence (NaN compares false, so a plain max would drop it).
    public var nonFinite: Int32 = 0

    /// Real-time safe. Measures `frames` frames of a stereo output.
    @inline(__always)
    public static func measure(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) -> MeterBlock {
        var block = MeterBlock()
        for frame in 0..<frames {
            var l = left[frame], r = right[frame]
            if !l.isFinite || !r.isFinite {
                block.nonFinite += (l.isFinite ? 0 : 1) + (r.isFinite ? 0 : 1)
                if !l.isFinite { l = 0 }
                if !r.isFinite { r = 0 }
            }
            block.peakLeft = max(block.peakLeft, abs(l))
            block.peakRight = max(block.peakRight, abs(r))
            block.squaresLeft += l * l
            block.squaresRight += r * r
        }
        block.frames = Int32(frames)
        return block
    }
}

/// The output meters: the process thread measures each period into a ring; a control thread
/// drains it into `MeterBallistics` and publishes.
public final class OutputMeter: Sendable {
    public let blocks = SPSCRing<MeterBlock>(minimumCapacity: 4096)
    private let producer: SPSCRing<MeterBlock>.Producer
    /// The meter thread sleeps on it while nobody watches the meters.
    public let doorbell = Doorbell()

    public init() { producer = blocks.producer }

    /// Real-time safe. A full ring drops the period's block. From half full on, the meter thread
    /// is rung every 256 periods: it drains the ring even while nobody watches.
    public func measure(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) {
        push(MeterBlock.measure(left: left, right: right, frames: frames))
    }

    /// Real-time safe. A period the engine left silent (`periodWasSilent`): its block without a scan.
    public func measureSilence(frames: Int) {
        var block = MeterBlock()
        block.frames = Int32(frames)
        push(block)
    }

    /// Real-time safe.
    @inline(__always)
    private func push(_ block: MeterBlock) {
        _ = producer.push(block)
        let waiting = blocks.count - blocks.capacity / 2
        if waiting >= 0 && waiting % 256 == 0 { doorbell.ring() }
    }
}
