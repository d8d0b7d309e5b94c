import Atomics
import Synchronization

/// What other threads see of a hosted plugin's guard (`PluginGuard`, the process thread's): the
/// samples it replaced, its overruns, trips and restarts, why it is out, its period times, and
/// the door a fresh instance comes in by. Atomics only, so the compiler checks that it may be
/// shared.
package final class PluginWatch: Sendable {
    package let nonFiniteSamples = Atomic<Int>(0)
    package let subnormalSamples = Atomic<Int>(0)
    package let overruns = Atomic<Int>(0)
    /// Times it was benched, and fresh instances put in its place.
    package let trips = Atomic<Int>(0)
    package let restarts = Atomic<Int>(0)
    /// Why it is out now (`PluginGuard.Reason`), 0: playing.
    package let out = Atomic<Int>(0)
    /// The longest period's time and the periods it ran in.
    package let maxNanoseconds = Atomic<Int>(0)
    package let periods = Atomic<Int>(0)
    /// Whether its run is under way now (a watchdog names a plugin that never returns).
    package let running = Atomic<Bool>(false)
    /// A fresh instance set from a control thread (a retained `InsertChain.PluginSet`'s address,
    /// 0: none), taken at the next run. Inline, beside the rest: the process thread looks at it
    /// every period.
    private let replacement = Atomic<UInt>(0)

    /// Period times in buckets of about 9 % (8 per octave of nanoseconds).
    private static let bucketsPerOctave = 8
    private static let bucketCount = 42 * bucketsPerOctave
    private let buckets: InlineArray<336, Atomic<Int>>

    package init() {
        buckets = InlineArray { _ in Atomic(0) }
        precondition(buckets.count == Self.bucketCount)
    }

    deinit {
        if let left = UnsafeRawPointer(bitPattern: replacement.exchange(0, ordering: .acquiring)) {
            Unmanaged<AnyObject>.fromOpaque(left).release()
        }
    }

    /// Real-time safe. A period the plugin ran for `periodNanoseconds` in all.
    func record(periodNanoseconds spent: Int) {
        periods.wrappingIncrement(ordering: .relaxed)
        buckets[Self.bucket(spent)].wrappingIncrement(ordering: .relaxed)
        if spent > maxNanoseconds.load(ordering: .relaxed) { maxNanoseconds.store(spent, ordering: .relaxed) }
    }

    /// Real-time safe. The replacement a control thread offered, if any, with its strong reference.
    func takeOffer() -> Unmanaged<InsertChain.PluginSet>? {
        guard replacement.load(ordering: .relaxed) != 0,
              let set = UnsafeRawPointer(bitPattern: replacement.exchange(0, ordering: .acquiring)) else { return nil }
        return Unmanaged<InsertChain.PluginSet>.fromOpaque(set)
    }

    /// Real-time safe. The bucket of a period time.
    @inline(__always)
    static func bucket(_ nanoseconds: Int) -> Int {
        let value = max(nanoseconds, 1)
        let octave = Int.bitWidth - 1 - value.leadingZeroBitCount
        let fraction = octave >= 3 ? (value >> (octave - 3)) & 7 : 0
        return min(octave * bucketsPerOctave + fraction, bucketCount - 1)
    }

    /// Control thread. Hands `set` (retained here) to the process thread; false (and released)
    /// when one is already waiting.
    package func offer(_ set: InsertChain.PluginSet) -> Bool {
        let retained = Unmanaged.passRetained(set as AnyObject).toOpaque()
        guard replacement.compareExchange(expected: 0, desired: UInt(bitPattern: retained), ordering: .releasing).exchanged else {
            Unmanaged<AnyObject>.fromOpaque(retained).release()
            return false
        }
        return true
    }

    /// Whether a replacement is still waiting to be taken.
    package var offerPending: Bool { replacement.load(ordering: .acquiring) != 0 }

    /// Any thread. The period times' median and 99th percentile (each bucket's middle), and the
    /// longest, in microseconds; nil before the first period.
    package func timing() -> (median: Double, p99: Double, max: Double)? {
        var counts = [Int](repeating: 0, count: Self.bucketCount)
        var total = 0
        for index in 0..<Self.bucketCount {
            counts[index] = buckets[index].load(ordering: .relaxed)
            total += counts[index]
        }
        guard total > 0 else { return nil }
        func quantile(_ q: Double) -> Double {
            let rank = Int((q * Double(total)).rounded(.up))
            var seen = 0
            for index in 0..<Self.bucketCount {
                seen += counts[index]
                if seen >= max(rank, 1) { return Self.middle(of: index) / 1000 }
            }
            return Self.middle(of: Self.bucketCount - 1) / 1000
        }
        return (quantile(0.5), quantile(0.99), Double(maxNanoseconds.load(ordering: .relaxed)) / 1000)
    }

    /// The middle of a bucket, in nanoseconds.
    static func middle(of bucket: Int) -> Double {
        let octave = bucket / bucketsPerOctave, fraction = bucket % bucketsPerOctave
        guard octave >= 3 else { return Double(1 << octave) }
        let low = Double((8 + fraction) << (octave - 3))
        return low + Double(1 << (octave - 3)) / 2
    }
}
