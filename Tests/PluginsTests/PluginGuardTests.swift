import Plugins
import Synchronization
import Realtime
import XCTest

/// The guard's arithmetic against plain references: what it replaces, when it benches, and its
/// time figures against the sorted times.
final class PluginGuardTests: XCTestCase {
    func testSanitizeReplacesExactlyTheNonFiniteAndSubnormalSamples() {
        let values: [Float] = [0, -0.0, 1, .nan, .infinity, -.infinity, .leastNormalMagnitude / 4, -.leastNonzeroMagnitude, .leastNormalMagnitude, 0.5, .greatestFiniteMagnitude]
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: values.count)
        defer { buffer.deallocate() }
        buffer.initialize(from: values, count: values.count)
        let found = PluginGuard.sanitize(buffer, frames: values.count)
        XCTAssertEqual(found.nonFinite, values.filter { !$0.isFinite }.count)
        XCTAssertEqual(found.subnormal, values.filter(\.isSubnormal).count)
        for (index, value) in values.enumerated() {
            let expected: Float = value.isFinite && !value.isSubnormal ? value : 0
            XCTAssertEqual(buffer[index].bitPattern == expected.bitPattern || (expected == 0 && buffer[index] == 0), true, "\(index)")
        }
    }

    func testItBenchesAfterEightPeriodsOfNonFiniteOutputInThirtyTwoAndAfterThreeOverrunsInTheWindow() {
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: 4)
        defer { samples.deallocate() }
        let watch = PluginGuard()
        for period in 0..<40 {
            samples.update(repeating: period % 4 == 0 ? .nan : 0.1, count: 4)
            watch.startRun()
            watch.endRun(samples, nil, frames: 4)
            let benchedNow = watch.closePeriod(budgetNanoseconds: 0)
            // Every fourth period is bad: the eighth bad one (period 28) benches it.
            XCTAssertEqual(benchedNow, period == 28, "\(period)")
        }
        XCTAssertEqual(watch.watch.out.load(ordering: .relaxed), PluginGuard.Reason.nonFinite.rawValue)
        XCTAssertEqual(watch.watch.nonFiniteSamples.load(ordering: .relaxed), 10 * 4)

        let slow = PluginGuard()
        var benchedAt: Int?
        for period in 0..<400 {
            slow.startRun()
            if period % 100 == 0 { usleep(60_000) }  // 60 ms against a 50 ms budget, waiting: an overrun
            slow.endRun(samples, nil, frames: 1)
            if slow.closePeriod(budgetNanoseconds: 50_000_000) { benchedAt = period }
        }
        // The first, at 0, makes the guard watchful (its usage was not read); those at 100, 200
        // and 300 are overruns, the third within 256 periods of the first.
        XCTAssertEqual(benchedAt, 300)
        XCTAssertEqual(slow.watch.overruns.load(ordering: .relaxed), 3)
        XCTAssertEqual(slow.watch.out.load(ordering: .relaxed), PluginGuard.Reason.overruns.rawValue)
        slow.reinstate()
        XCTAssertFalse(slow.benched)
    }

    /// A cheap run the scheduler keeps off the CPU for four times its share is no overrun; one
    /// that works for more than its share, or sleeps through it, is. The reference is the test
    /// thread's own CPU clock, read around each run.
    func testAPreemptedRunIsNoOverrunAndABusyOrSleepingOneIs() throws {
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { samples.deallocate() }
        samples.pointee = 0
        let budget = 5_000_000, plugin = PluginGuard()
        // Preempted: beside more spinning threads than cores, each run yields until 20 ms have
        // passed (a yield is an involuntary switch, as a preemption is).
        let spinners = Spinners(count: ProcessInfo.processInfo.activeProcessorCount + 1)
        var cpuTimes: [Int] = []
        for _ in 0..<6 {
            let cpu = Self.threadCPUNanoseconds(), started = DispatchTime.now().uptimeNanoseconds
            plugin.startRun()
            while DispatchTime.now().uptimeNanoseconds - started < 20_000_000 { sched_yield() }
            plugin.endRun(samples, nil, frames: 1)
            cpuTimes.append(Self.threadCPUNanoseconds() - cpu)
            plugin.closePeriod(budgetNanoseconds: budget)
        }
        spinners.stop()
        XCTAssertEqual(cpuTimes.count, 6)
        XCTAssertEqual(cpuTimes.filter { $0 > budget }.count, 0, "the spinners left the run on the CPU: \(cpuTimes) ns")
        XCTAssertEqual(plugin.watch.overruns.load(ordering: .relaxed), 0, "CPU times \(cpuTimes) ns")
        XCTAssertGreaterThan(try XCTUnwrap(plugin.watch.timing()).max, 20_000, "the wall clock saw each run's 20 ms")

        // Busy for 8 ms of its own CPU time, asleep for 8 ms, busy again: three overruns, benched.
        var benched: [Bool] = []
        for period in 0..<3 {
            plugin.startRun()
            if period == 1 {
                usleep(8_000)
            } else {
                let cpu = Self.threadCPUNanoseconds()
                while Self.threadCPUNanoseconds() - cpu < 8_000_000 {}
            }
            plugin.endRun(samples, nil, frames: 1)
            benched.append(plugin.closePeriod(budgetNanoseconds: budget))
        }
        XCTAssertEqual(benched, [false, false, true])
        XCTAssertEqual(plugin.watch.overruns.load(ordering: .relaxed), 3)
        XCTAssertEqual(plugin.watch.out.load(ordering: .relaxed), PluginGuard.Reason.overruns.rawValue)
    }

    private static func threadCPUNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    func testTheTimeFiguresMatchTheSortedTimesWithinABucket() throws {
        let watch = PluginGuard()
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { samples.deallocate() }
        samples.pointee = 0
        var measured: [Double] = []
        for period in 0..<200 {
            let started = DispatchTime.now().uptimeNanoseconds
            watch.startRun()
            usleep(period % 50 == 0 ? 3_000 : 200)
            watch.endRun(samples, nil, frames: 1)
            measured.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
            watch.closePeriod(budgetNanoseconds: 0)
        }
        let timing = try XCTUnwrap(watch.watch.timing())
        let sorted = measured.sorted()
        // Buckets are 1/8 octave wide (≤ 9 %); the outer clock read brackets the guard's own.
        XCTAssertEqual(timing.median, sorted[99], accuracy: sorted[99] * 0.3)
        XCTAssertEqual(timing.p99, sorted[197], accuracy: sorted[197] * 0.3)
        XCTAssertLessThanOrEqual(timing.max, sorted.last!)
        XCTAssertGreaterThan(timing.max, 3_000)
        XCTAssertEqual(watch.watch.periods.load(ordering: .relaxed), 200)
    }
}

/// Threads that spin at normal priority until stopped: the scheduler's competition, each
/// spinning before `init` returns.
private final class Spinners: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let spinning = Atomic<Int>(0)

    init(count: Int) {
        for _ in 0..<count {
            Thread.detachNewThread { [self] in
                spinning.add(1, ordering: .relaxed)
                while !stopped.load(ordering: .relaxed) {}
                spinning.subtract(1, ordering: .relaxed)
            }
        }
        while spinning.load(ordering: .relaxed) < count { usleep(1_000) }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        while spinning.load(ordering: .relaxed) > 0 { usleep(1_000) }
    }
}
