import Plugins
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
        for period in 0..<300 {
            slow.startRun()
            if period % 100 == 0 { usleep(60_000) }  // 60 ms against a 50 ms budget: an overrun
            slow.endRun(samples, nil, frames: 1)
            if slow.closePeriod(budgetNanoseconds: 50_000_000) { benchedAt = period }
        }
        // Overruns at 0, 100 and 200: the third is within 256 periods of the first.
        XCTAssertEqual(benchedAt, 200)
        XCTAssertEqual(slow.watch.overruns.load(ordering: .relaxed), 3)
        XCTAssertEqual(slow.watch.out.load(ordering: .relaxed), PluginGuard.Reason.overruns.rawValue)
        slow.reinstate()
        XCTAssertFalse(slow.benched)
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
