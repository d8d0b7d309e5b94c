import Realtime
import TestSupport
import XCTest

/// The counters made from a kind's cases: each case its own atomic, the snapshot and the status
/// in the kind's order, and the summary line as each description's words say.
final class CountersTests: XCTestCase {
    private enum Kind: Int, CounterKind {
        case apples, pears, plums, figs

        var about: CounterDescription {
            switch self {
            case .apples: CounterDescription("apples", countedOn: .process, summary: .always("apples"))
            case .pears: CounterDescription("pears_eaten", countedOn: .process, summary: .inParentheses("pears eaten"))
            case .plums: CounterDescription("plums", countedOn: .input)
            case .figs: CounterDescription("figs", countedOn: .page, summary: .ifAny("figs left over"))
            }
        }
    }

    func testEachCounterCountsAloneAndShowsUnderItsKey() {
        let counters = Counters<Kind>()
        counters.add(.apples)
        counters.add(.apples, 4)
        counters.add(.pears, 3)
        counters.subtract(.pears)
        counters.set(.plums, 42)
        XCTAssertEqual([counters.value(.apples), counters.value(.pears), counters.value(.plums), counters.value(.figs)], [5, 2, 42, 0])
        let snapshot = counters.snapshot()
        XCTAssertEqual(snapshot[.apples], 5)
        XCTAssertEqual(snapshot.status.map(\.0), ["apples", "pears_eaten", "plums", "figs"])
        XCTAssertEqual(snapshot.status.map(\.1), [5, 2, 42, 0])
        XCTAssertEqual(counters.status.map(\.1), [5, 2, 42, 0])
        XCTAssertEqual(snapshot, Counters<Kind>.Snapshot(values: [5, 2, 42, 0]))
    }

    func testTheSummarySaysWhatTheDescriptionsSay() {
        var snapshot = Counters<Kind>.Snapshot.zero
        XCTAssertEqual(snapshot.summary, "0 apples (0 pears eaten)", "plums have no words; no figs left over, nothing said")
        snapshot[.apples] = 7
        snapshot[.pears] = 1
        snapshot[.figs] = 2
        XCTAssertEqual(snapshot.summary, "7 apples (1 pears eaten), 2 figs left over")
    }

    /// Counted from several threads at once, no count is lost (each is one atomic add).
    func testCountsFromManyThreadsAddUp() {
        let counters = Counters<Kind>()
        JoinedThreads.run(8) { _ in
            for _ in 0..<10_000 { counters.add(.figs) }
        }
        XCTAssertEqual(counters.value(.figs), 80_000)
        XCTAssertEqual(counters.value(.apples), 0)
    }
}
