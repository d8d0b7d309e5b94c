import Realtime
import Synchronization

/// One period's raw levels per output channel, measured on the process thread.
public struct MeterBlock: Sendable, BitwiseCopyable {
    public var peakLeft: Float = 0, peakRight: Float = 0
    /// Sums of squares, for the mean-square (RMS) level.
    public var squaresLeft: Float = 0, squaresRight: Float = 0
    public var frames: Int32 = 0
    /// Samples that were not finite (NaN, ±Inf): counted, and left out of the levels rather than
    /// read as silence (NaN compares false, so a plain max would drop it).
    public var nonFinite: Int32 = 0

    /// Real-time safe. Measures `frames` frames of a stereo output: four frames a step, without
    /// a branch, on the magnitudes' bits (a non-finite sample, exponent all ones, counts and reads
    /// as 0; for non-negative floats the bits order as the values do), with four partial sums of
    /// squares a channel so the additions do not wait on each other.
    public static func measure(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) -> MeterBlock {
        var peakLeft: UInt32 = 0, peakRight: UInt32 = 0, nonFinite: UInt32 = 0
        var left0: Float = 0, left1: Float = 0, left2: Float = 0, left3: Float = 0
        var right0: Float = 0, right1: Float = 0, right2: Float = 0, right3: Float = 0
        let whole = frames & ~3
        var frame = 0
        while frame < whole {
            let l0 = magnitude(left[frame]), l1 = magnitude(left[frame + 1]), l2 = magnitude(left[frame + 2]), l3 = magnitude(left[frame + 3])
            let r0 = magnitude(right[frame]), r1 = magnitude(right[frame + 1]), r2 = magnitude(right[frame + 2]), r3 = magnitude(right[frame + 3])
            peakLeft = max(peakLeft, max(max(l0.bits, l1.bits), max(l2.bits, l3.bits)))
            peakRight = max(peakRight, max(max(r0.bits, r1.bits), max(r2.bits, r3.bits)))
            nonFinite &+= l0.nonFinite &+ l1.nonFinite &+ l2.nonFinite &+ l3.nonFinite
                &+ r0.nonFinite &+ r1.nonFinite &+ r2.nonFinite &+ r3.nonFinite
            left0 += l0.value * l0.value
            left1 += l1.value * l1.value
            left2 += l2.value * l2.value
            left3 += l3.value * l3.value
            right0 += r0.value * r0.value
            right1 += r1.value * r1.value
            right2 += r2.value * r2.value
            right3 += r3.value * r3.value
            frame += 4
        }
        while frame < frames {
            let l = magnitude(left[frame]), r = magnitude(right[frame])
            peakLeft = max(peakLeft, l.bits)
            peakRight = max(peakRight, r.bits)
            nonFinite &+= l.nonFinite &+ r.nonFinite
            left0 += l.value * l.value
            right0 += r.value * r.value
            frame += 1
        }
        var block = MeterBlock()
        block.peakLeft = Float(bitPattern: peakLeft)
        block.peakRight = Float(bitPattern: peakRight)
        block.squaresLeft = (left0 + left1) + (left2 + left3)
        block.squaresRight = (right0 + right1) + (right2 + right3)
        block.frames = Int32(frames)
        block.nonFinite = Int32(truncatingIfNeeded: nonFinite)
        return block
    }

    /// Real-time safe. A sample's magnitude, as bits and as a value, 0 when it is not finite.
    @inline(__always)
    private static func magnitude(_ sample: Float) -> (bits: UInt32, value: Float, nonFinite: UInt32) {
        let bits = sample.bitPattern & 0x7FFF_FFFF
        let nonFinite: UInt32 = bits >= 0x7F80_0000 ? 1 : 0
        let kept = nonFinite == 1 ? 0 : bits
        return (kept, Float(bitPattern: kept), nonFinite)
    }
}

/// The output meters: the process thread measures each period into a ring; a control thread
/// drains it into `MeterBallistics` and publishes.
public final class OutputMeter: Sendable {
    public let blocks = SPSCRing<MeterBlock>(minimumCapacity: 4096)
    private let producer: SPSCRing<MeterBlock>.Producer
    /// The meter thread sleeps on it while nobody watches the meters.
    public let doorbell = Doorbell()
    /// Whether someone watches the meters (the meter thread says so): while nobody does, the
    /// process thread holds silent periods for a second, not a meter frame, before measuring them.
    private let watchedNow = Atomic<Bool>(false)

    public init() { producer = blocks.producer }

    /// Real-time safe. Whether someone watches the meters now.
    public var watched: Bool { watchedNow.load(ordering: .relaxed) }

    /// The meter thread: someone watches the meters now, or nobody does.
    public func setWatched(_ watched: Bool) { watchedNow.store(watched, ordering: .relaxed) }

    /// Real-time safe. A period that sounded: its levels, measured by the master stage's pass
    /// over the output (`RealtimeEngine.periodLevels`). A full ring drops the period's block.
    /// From half full on, the meter thread is rung every 256 periods: it drains the ring even
    /// while nobody watches.
    public func record(_ block: MeterBlock) {
        _ = producer.push(block)
        let waiting = blocks.count - blocks.capacity / 2
        if waiting >= 0 && waiting % 256 == 0 { doorbell.ring() }
    }

    /// Real-time safe. A period the engine left silent (`periodWasSilent`): its block without a scan.
    public func measureSilence(frames: Int) {
        var block = MeterBlock()
        block.frames = Int32(frames)
        record(block)
    }
}
