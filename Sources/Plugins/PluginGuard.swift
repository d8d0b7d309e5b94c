import Atomics
import Foundation
import Realtime
import Synchronization

/// One hosted plugin's guard, on the process thread: what the plugin wrote is checked before the
/// next stage reads it, and its time is measured.
///
/// - Non-finite samples (NaN, ±Inf) are replaced by zero and counted; subnormal ones are
///   flushed to zero (flush-to-zero does not touch a value the plugin stored rather than computed).
/// - A plugin whose output held non-finite samples in `nonFiniteTrip` of its last 32 periods is
///   benched (an insert passes its input dry, an instrument is silent) and marked `out`: a control
///   thread builds a fresh instance with its last state (`PluginRescue`) and hands it over through
///   `offer`, which puts it back.
/// - Each period's run time is summed; a plugin that takes more than its share of the period
///   (`budgetNanoseconds`) in `overrunTrip` periods within `overrunWindow` periods is benched
///   for good (a spinning plugin spins again after a reset), until its bypass is set to 0.
///
/// Written by the process thread; the atomics are what other threads read.
package final class PluginGuard: @unchecked Sendable {  // @unchecked: the plain vars are the process thread's alone.
    package enum Reason: Int, Sendable {
        case none = 0, nonFinite = 1, overruns = 2
    }

    /// Periods with non-finite output among the last 32 that bench the plugin.
    package static let nonFiniteTrip = 8
    /// Overrun periods within `overrunWindow` periods that bench it.
    package static let overrunTrip = 3
    package static let overrunWindow: Int64 = 256

    package let nonFiniteSamples = Atomic<Int>(0)
    package let subnormalSamples = Atomic<Int>(0)
    package let overruns = Atomic<Int>(0)
    /// Times it was benched, and fresh instances put in its place.
    package let trips = Atomic<Int>(0)
    package let restarts = Atomic<Int>(0)
    /// Why it is out now (`Reason`), 0: playing.
    package let out = Atomic<Int>(0)
    /// The longest period's time and the periods it ran in.
    package let maxNanoseconds = Atomic<Int>(0)
    package let periods = Atomic<Int>(0)
    /// Whether its run is under way now (a watchdog names a plugin that never returns).
    package let running = Atomic<Bool>(false)
    /// A fresh instance set from a control thread (a retained `InsertChain.PluginSet`'s address,
    /// 0: none), taken at the next run. Inline, beside the rest of the guard: the process thread
    /// looks at it every period.
    private let replacement = Atomic<UInt>(0)

    /// Period times in buckets of about 9 % (8 per octave of nanoseconds).
    private static let bucketsPerOctave = 8
    private static let bucketCount = 42 * bucketsPerOctave
    private let buckets: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>

    // The process thread's own.
    /// Benched: not run until `offer` or an explicit un-bypass.
    package private(set) var benched = false
    private var nonFiniteHistory: UInt32 = 0
    private var periodHadNonFinite = false
    private var periodNanoseconds = 0
    private var ranThisPeriod = false
    private var runStarted = timespec()
    private var period: Int64 = 0
    /// The periods of the last `overrunTrip` overruns, oldest first.
    private var overrunPeriods: (Int64, Int64, Int64) = (.min, .min, .min)

    package init() {
        buckets = .allocate(capacity: Self.bucketCount)
        buckets.initialize(repeating: UnsafeAtomic<Int>.Storage(0), count: Self.bucketCount)
    }

    deinit {
        if let left = UnsafeRawPointer(bitPattern: replacement.exchange(0, ordering: .acquiring)) {
            Unmanaged<AnyObject>.fromOpaque(left).release()
        }
        buckets.deinitialize(count: Self.bucketCount)
        buckets.deallocate()
    }

    // MARK: - The process path

    /// Real-time safe. Before the plugin's run (a vDSO clock read: no system call).
    @inline(__always)
    package func startRun() {
        running.store(true, ordering: .relaxed)
        clock_gettime(CLOCK_MONOTONIC, &runStarted)
    }

    /// Real-time safe. After the run: its time, and `outputs` (each `frames` long) checked.
    package func endRun(_ first: UnsafeMutablePointer<Float>, _ second: UnsafeMutablePointer<Float>?, frames: Int) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        running.store(false, ordering: .relaxed)
        periodNanoseconds += (now.tv_sec - runStarted.tv_sec) * 1_000_000_000 + (now.tv_nsec - runStarted.tv_nsec)
        ranThisPeriod = true
        var replaced = Self.sanitize(first, frames: frames)
        if let second { replaced = Self.add(replaced, Self.sanitize(second, frames: frames)) }
        if replaced.nonFinite > 0 {
            periodHadNonFinite = true
            nonFiniteSamples.wrappingIncrement(by: replaced.nonFinite, ordering: .relaxed)
        }
        if replaced.subnormal > 0 { subnormalSamples.wrappingIncrement(by: replaced.subnormal, ordering: .relaxed) }
    }

    @inline(__always)
    private static func add(_ a: (nonFinite: Int, subnormal: Int), _ b: (nonFinite: Int, subnormal: Int)) -> (nonFinite: Int, subnormal: Int) {
        (a.nonFinite + b.nonFinite, a.subnormal + b.subnormal)
    }

    /// Real-time safe. Non-finite and subnormal samples become 0; how many of each there were.
    /// Four samples a step (`SampleLanes`), every sample written back, a bad one as 0.
    @inline(__always)
    package static func sanitize(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> (nonFinite: Int, subnormal: Int) {
        var nonFinite = SampleLanes.Bits(repeating: 0), subnormal = SampleLanes.Bits(repeating: 0)
        let whole = frames & ~3
        var frame = 0
        while frame < whole {
            let lanes = SampleLanes.clean(samples, at: frame)
            nonFinite &+= SampleLanes.ones(lanes.nonFinite)
            subnormal &+= SampleLanes.ones(lanes.subnormal)
            frame &+= 4
        }
        var found = (nonFinite: Int(nonFinite.wrappedSum()), subnormal: Int(subnormal.wrappedSum()))
        while frame < frames {
            let one = SampleLanes.cleanOne(samples, at: frame)
            found.nonFinite += Int(one.nonFinite)
            found.subnormal += Int(one.subnormal)
            frame &+= 1
        }
        return found
    }

    /// Real-time safe. A replacement offered by a control thread, if any: the caller swaps it in
    /// (handing the old set back to be freed) and the plugin plays again.
    package func takeReplacement() -> Unmanaged<InsertChain.PluginSet>? {
        guard replacement.load(ordering: .relaxed) != 0,
              let set = UnsafeRawPointer(bitPattern: replacement.exchange(0, ordering: .acquiring)) else { return nil }
        reinstate()
        restarts.wrappingIncrement(ordering: .relaxed)
        return Unmanaged<InsertChain.PluginSet>.fromOpaque(set)
    }

    /// Real-time safe. Plays again (a fresh instance, or its bypass set to 0).
    package func reinstate() {
        benched = false
        nonFiniteHistory = 0
        overrunPeriods = (.min, .min, .min)
        out.store(Reason.none.rawValue, ordering: .releasing)
    }

    /// Real-time safe. At the end of every period: the period's time and findings go into the
    /// figures, and the plugin is benched when they say so (true: benched now). `budgetNanoseconds`: its share of the
    /// period (0: no overrun check, as offline).
    @discardableResult
    package func closePeriod(budgetNanoseconds: Int) -> Bool {
        period += 1
        guard ranThisPeriod else { return false }
        ranThisPeriod = false
        let spent = periodNanoseconds
        periodNanoseconds = 0
        periods.wrappingIncrement(ordering: .relaxed)
        UnsafeAtomic<Int>(at: buckets + Self.bucket(spent)).wrappingIncrement(ordering: .relaxed)
        if spent > maxNanoseconds.load(ordering: .relaxed) { maxNanoseconds.store(spent, ordering: .relaxed) }
        nonFiniteHistory = nonFiniteHistory << 1 | (periodHadNonFinite ? 1 : 0)
        periodHadNonFinite = false
        if budgetNanoseconds > 0 && spent > budgetNanoseconds {
            overruns.wrappingIncrement(ordering: .relaxed)
            overrunPeriods = (overrunPeriods.1, overrunPeriods.2, period)
        }
        guard !benched else { return false }
        if nonFiniteHistory.nonzeroBitCount >= Self.nonFiniteTrip {
            bench(.nonFinite)
        } else if overrunPeriods.0 != .min && period - overrunPeriods.0 < Self.overrunWindow {
            bench(.overruns)
        }
        return benched
    }

    /// Real-time safe.
    private func bench(_ reason: Reason) {
        benched = true
        trips.wrappingIncrement(ordering: .relaxed)
        out.store(reason.rawValue, ordering: .releasing)
    }

    /// Real-time safe. The bucket of a period time.
    @inline(__always)
    static func bucket(_ nanoseconds: Int) -> Int {
        let value = max(nanoseconds, 1)
        let octave = Int.bitWidth - 1 - value.leadingZeroBitCount
        let fraction = octave >= 3 ? (value >> (octave - 3)) & 7 : 0
        return min(octave * bucketsPerOctave + fraction, bucketCount - 1)
    }

    // MARK: - Other threads

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
            counts[index] = UnsafeAtomic<Int>(at: buckets + index).load(ordering: .relaxed)
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
