import Synchronization

/// A kind of counter: an enumeration whose cases are the counters of one counting object (the
/// engine's, the OSC input's, the page server's), each described once (`about`). The atomics,
/// the snapshot, the status (OSC, JSON, the page) and the summary line are all made from the
/// cases and their descriptions, so a counter added is one case and one description, and a
/// counter that is counted is shown.
public protocol CounterKind: CaseIterable, Sendable, Hashable, RawRepresentable where RawValue == Int, AllCases == [Self] {
    /// What this counter is: its status name, who counts it, and its words in a summary line.
    var about: CounterDescription { get }
}

/// One counter's description.
public struct CounterDescription: Sendable {
    /// Its name in the status (`/pulse/status`, `pulsejack status --json`, the page): `voices_fired`.
    public let key: String
    /// The one thread that counts it; any thread reads it (relaxed: each counter stands alone).
    public let countedOn: CountingThread
    /// Its place in a run's last line, if it has one.
    public let summary: SummaryWords?

    public init(_ key: String, countedOn: CountingThread, summary: SummaryWords? = nil) {
        self.key = key
        self.countedOn = countedOn
        self.summary = summary
    }
}

/// The thread that counts a counter.
public enum CountingThread: String, Sendable {
    case process = "the process thread"
    case jackNotification = "JACK's notification thread"
    /// The thread that receives an input's messages (OSC's, or the page server's for its commands).
    case input = "the input's receiving thread"
    case page = "the page server's threads"
}

/// How a counter reads in a summary line ("12 voices fired").
public enum SummaryWords: Sendable {
    /// "N words", always.
    case always(String)
    /// "(N words)" after the counter before it.
    case inParentheses(String)
    /// "N words", only when N is not 0.
    case ifAny(String)
}

/// The counters of one kind, as atomics stored inline (`AtomicCounting`): counting one on the
/// process thread is one atomic instruction, reading one is one load.
public final class Counters<Kind: CounterKind>: Sendable {
    public typealias Snapshot = CounterSnapshot<Kind>
    /// Room for every kind's counters: a kind has at most this many.
    public static var capacity: Int { 64 }
    @usableFromInline let values: InlineArray<64, Atomic<Int>>

    public init() {
        precondition(Kind.allCases.count <= Self.capacity, "\(Kind.self) has more counters than \(Self.capacity)")
        precondition(Kind.allCases.enumerated().allSatisfy { $0.offset == $0.element.rawValue }, "\(Kind.self)'s cases number 0, 1, 2 …")
        values = InlineArray { _ in Atomic(0) }
    }

    /// Real-time safe. Counts `amount` more of `counter` (by its one counting thread).
    @inlinable @inline(__always)
    public func add(_ counter: Kind, _ amount: Int = 1) {
        values[counter.rawValue].wrappingIncrement(by: amount, ordering: .relaxed)
    }

    /// Real-time safe. Counts `amount` back (a gauge going down, a count wound back).
    @inlinable @inline(__always)
    public func subtract(_ counter: Kind, _ amount: Int = 1) {
        values[counter.rawValue].wrappingDecrement(by: amount, ordering: .relaxed)
    }

    /// Real-time safe. Sets `counter` to a total another source keeps (the kernel's drops).
    @inlinable @inline(__always)
    public func set(_ counter: Kind, _ value: Int) {
        values[counter.rawValue].store(value, ordering: .relaxed)
    }

    /// Real-time safe.
    @inlinable @inline(__always)
    public func value(_ counter: Kind) -> Int {
        values[counter.rawValue].load(ordering: .relaxed)
    }

    /// Control thread. Every counter by its status name, in the kind's order.
    public var status: [(String, Int)] { snapshot().status }

    /// Control thread. Every counter's value now (each read on its own).
    public func snapshot() -> Snapshot {
        Snapshot(values: Kind.allCases.map(value))
    }
}

/// Every counter of a kind at one moment.
public struct CounterSnapshot<Kind: CounterKind>: Sendable, Equatable {
    public private(set) var values: [Int]

    public init(values: [Int]) {
        precondition(values.count == Kind.allCases.count)
        self.values = values
    }

    /// Every counter zero.
    public static var zero: Self { Self(values: Array(repeating: 0, count: Kind.allCases.count)) }

    public subscript(counter: Kind) -> Int {
        get { values[counter.rawValue] }
        set { values[counter.rawValue] = newValue }
    }

    /// Every counter by its status name, in the kind's order.
    public var status: [(String, Int)] { Kind.allCases.map { ($0.about.key, self[$0]) } }

    /// The counters that have summary words, as a run's last line says them: "3 beats, 2 voices
    /// fired, 0 xruns (0 frames skipped) …".
    public var summary: String {
        var line = ""
        for counter in Kind.allCases {
            let count = self[counter]
            switch counter.about.summary {
            case nil: continue
            case .always(let words): line += (line.isEmpty ? "" : ", ") + "\(count) \(words)"
            case .inParentheses(let words): line += " (\(count) \(words))"
            case .ifAny(let words) where count != 0: line += (line.isEmpty ? "" : ", ") + "\(count) \(words)"
            case .ifAny: continue
            }
        }
        return line
    }
}
