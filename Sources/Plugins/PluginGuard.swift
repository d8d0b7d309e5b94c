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
/// - An overrun is the plugin's own: a period over its share by the wall clock makes the guard
///   watchful for `overrunWindow` periods, and while watchful each run also reads the thread's
///   CPU time and voluntary switches (`ThreadUsage`). Only a period over its share in CPU time,
///   or one over it that waited (a lock, a file, a sleep), counts. A cheap plugin the scheduler
///   preempted (a server without real-time priority, a loaded machine) is not benched for it:
///   CI's every-fault run benched the NaN plugin so, before its NaN was ever seen.
///
/// The process thread's alone (not `Sendable`: the compiler keeps it there); what other threads
/// read of it, and the replacement they offer, is its `watch`.
package final class PluginGuard {
    package enum Reason: Int, Sendable {
        case none = 0, nonFinite = 1, overruns = 2
    }

    /// Periods with non-finite output among the last 32 that bench the plugin.
    package static let nonFiniteTrip = 8
    /// Overrun periods within `overrunWindow` periods that bench it.
    package static let overrunTrip = 3
    package static let overrunWindow: Int64 = 256

    /// What other threads see of this guard: its figures, and the door a replacement comes in by.
    package let watch = PluginWatch()

    // The process thread's own.
    /// Benched: not run until `offer` or an explicit un-bypass.
    package private(set) var benched = false
    private var nonFiniteHistory: UInt32 = 0
    private var periodHadNonFinite = false
    private var periodNanoseconds = 0
    private var ranThisPeriod = false
    private var runStarted = timespec()
    /// Until which period each run's thread usage is read too (after a period over its share).
    private var watchfulUntil: Int64 = .min
    /// This period's runs were all read for usage: their CPU time, and whether they waited.
    private var usageRead = false
    private var usageStarted = ThreadUsage()
    private var periodCPUNanoseconds = 0
    private var periodWaited = false
    private var period: Int64 = 0
    /// The periods of the last `overrunTrip` overruns, oldest first.
    private var overrunPeriods: (Int64, Int64, Int64) = (.min, .min, .min)

    package init() {}

    // MARK: - The process path

    /// Real-time safe. Before the plugin's run (a vDSO clock read: no system call; while
    /// watchful, also `getrusage`, which never blocks).
    @inline(__always)
    package func startRun() {
        watch.running.store(true, ordering: .relaxed)
        if period < watchfulUntil {
            usageRead = true
            usageStarted = ThreadUsage.now()
        }
        clock_gettime(CLOCK_MONOTONIC, &runStarted)
    }

    /// Real-time safe. After the run: its time, and `outputs` (each `frames` long) checked.
    package func endRun(_ first: UnsafeMutablePointer<Float>, _ second: UnsafeMutablePointer<Float>?, frames: Int) {
        stopTiming()
        checkOutputs(first, second, frames: frames)
    }

    /// Real-time safe. The runs since `startRun` are over (a vDSO clock read): their time counts
    /// toward the period's share. A run split at control changes is timed once, not per part.
    @inline(__always)
    package func stopTiming() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        if usageRead {
            let usage = ThreadUsage.now()
            periodCPUNanoseconds += usage.cpuNanoseconds - usageStarted.cpuNanoseconds
            if usage.voluntarySwitches != usageStarted.voluntarySwitches { periodWaited = true }
        }
        watch.running.store(false, ordering: .relaxed)
        periodNanoseconds += (now.tv_sec - runStarted.tv_sec) * 1_000_000_000 + (now.tv_nsec - runStarted.tv_nsec)
        ranThisPeriod = true
    }

    /// Real-time safe. A run's `outputs` (each `frames` long) checked: nothing non-finite or
    /// subnormal goes on, and each is counted.
    package func checkOutputs(_ first: UnsafeMutablePointer<Float>, _ second: UnsafeMutablePointer<Float>?, frames: Int) {
        var replaced = Self.sanitize(first, frames: frames)
        if let second { replaced = Self.add(replaced, Self.sanitize(second, frames: frames)) }
        if replaced.nonFinite > 0 {
            periodHadNonFinite = true
            watch.nonFiniteSamples.wrappingIncrement(by: replaced.nonFinite, ordering: .relaxed)
        }
        if replaced.subnormal > 0 { watch.subnormalSamples.wrappingIncrement(by: replaced.subnormal, ordering: .relaxed) }
    }

    @inline(__always)
    private static func add(_ a: (nonFinite: Int, subnormal: Int), _ b: (nonFinite: Int, subnormal: Int)) -> (nonFinite: Int, subnormal: Int) {
        (a.nonFinite + b.nonFinite, a.subnormal + b.subnormal)
    }

    /// Real-time safe. Non-finite and subnormal samples become 0; how many of each there were.
    /// Four samples a step (`SampleLanes`, optimized even in a debug build), every sample written back.
    @inline(__always)
    package static func sanitize(_ samples: UnsafeMutablePointer<Float>, frames: Int) -> (nonFinite: Int, subnormal: Int) {
        SampleLanes.sanitize(samples, frames: frames)
    }

    /// Real-time safe. A replacement offered by a control thread, if any: the caller swaps it in
    /// (handing the old set back to be freed) and the plugin plays again.
    package func takeReplacement() -> Unmanaged<InsertChain.PluginSet>? {
        guard let set = watch.takeOffer() else { return nil }
        reinstate()
        watch.restarts.wrappingIncrement(ordering: .relaxed)
        return set
    }

    /// Real-time safe. Plays again (a fresh instance, or its bypass set to 0).
    package func reinstate() {
        benched = false
        nonFiniteHistory = 0
        overrunPeriods = (.min, .min, .min)
        watch.out.store(Reason.none.rawValue, ordering: .releasing)
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
        watch.record(periodNanoseconds: spent)
        nonFiniteHistory = nonFiniteHistory << 1 | (periodHadNonFinite ? 1 : 0)
        periodHadNonFinite = false
        if budgetNanoseconds > 0 && spent > budgetNanoseconds { judgeOverrun(budgetNanoseconds: budgetNanoseconds) }
        usageRead = false
        periodCPUNanoseconds = 0
        periodWaited = false
        guard !benched else { return false }
        if nonFiniteHistory.nonzeroBitCount >= Self.nonFiniteTrip {
            bench(.nonFinite)
        } else if overrunPeriods.0 != .min && period - overrunPeriods.0 < Self.overrunWindow {
            bench(.overruns)
        }
        return benched
    }

    /// Real-time safe. A period over its share by the wall clock: an overrun when its runs were
    /// read for usage and were busy or waited; the guard watchful from here on either way.
    private func judgeOverrun(budgetNanoseconds: Int) {
        if usageRead && (periodCPUNanoseconds > budgetNanoseconds || periodWaited) {
            watch.overruns.wrappingIncrement(ordering: .relaxed)
            overrunPeriods = (overrunPeriods.1, overrunPeriods.2, period)
        }
        watchfulUntil = period + Self.overrunWindow
    }

    /// Real-time safe.
    private func bench(_ reason: Reason) {
        benched = true
        watch.trips.wrappingIncrement(ordering: .relaxed)
        watch.out.store(reason.rawValue, ordering: .releasing)
    }
}
