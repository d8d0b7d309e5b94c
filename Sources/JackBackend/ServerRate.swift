import Atomics
import Engine
import Synchronization

/// The server's sample rate, and an engine rebuilt for it on its way to the process thread.
/// JACK's sample-rate callback stores the rate. The process thread, finding it differs from its
/// engine's, stops running that engine (`parked`: silence on every port). The control thread
/// `claim`s the parked engine — from then on only the control thread touches it, to carry it
/// over — and `offer`s one built at the server's rate, which the process thread swaps in at a
/// cycle's start; what it replaced comes back through `takeReplaced`, to be released off the
/// process thread. An engine parked but not yet claimed runs again if the server returns to its
/// rate. Survives reconnects (a server back at another rate is followed the same way).
package final class ServerRate: Sendable {
    let rate: Atomic<Int>
    /// Times the rate changed while we ran.
    let changes = Atomic<Int>(0)
    /// The process thread's engine: `running`, `parked` (stopped by the process thread, which
    /// may resume it) or `claimed` (the control thread's, until a rebuilt engine is swapped in).
    let engineState = Atomic<Int>(State.running)
    enum State {
        static let running = 0, parked = 1, claimed = 2
    }
    private let offered = ManagedAtomic<Unmanaged<EngineSwap>?>(nil)
    private let replaced = ManagedAtomic<Unmanaged<EngineSwap>?>(nil)

    init(_ rate: Int) { self.rate = Atomic(rate) }

    /// JACK's sample-rate callback (a JACK thread, not the process thread).
    func changed(to newRate: Int) {
        if rate.exchange(newRate, ordering: .relaxed) != newRate { changes.wrappingIncrement(ordering: .relaxed) }
    }

    /// Control thread: the parked engine is this thread's from now (false: it is not parked,
    /// or already claimed).
    func claim() -> Bool {
        engineState.compareExchange(expected: State.parked, desired: State.claimed, ordering: .acquiringAndReleasing).exchanged
    }

    /// Control thread: a claimed engine left untouched goes back to the process thread, which
    /// runs it again if the server returns to its rate.
    func unclaim() {
        _ = engineState.compareExchange(expected: State.claimed, desired: State.parked, ordering: .releasing)
    }

    /// Control thread: `swap` for the process thread to take when the server runs at its rate.
    /// False while another is on offer or its replaced parts are not yet taken back.
    func offer(_ swap: EngineSwap) -> Bool {
        guard replaced.load(ordering: .acquiring) == nil else { return false }
        let retained = Unmanaged.passRetained(swap)
        guard offered.compareExchange(expected: nil, desired: retained, ordering: .releasing).exchanged else {
            retained.release()
            return false
        }
        return true
    }

    /// Control thread: the offer back, if the process thread has not taken it (the rate moved on).
    func withdraw() -> EngineSwap? {
        offered.exchange(nil, ordering: .acquiring)?.takeRetainedValue()
    }

    /// Real-time safe. The offered swap, when it is for `serverRate`; it stays owned here until
    /// the process thread hands it back with `swapped`.
    func take(for serverRate: Int) -> EngineSwap? {
        guard let swap = offered.load(ordering: .acquiring), swap._withUnsafeGuaranteedRef({ $0.engine.sampleRate }) == serverRate,
              offered.compareExchange(expected: swap, desired: nil, ordering: .acquiring).exchanged else { return nil }
        return swap.takeUnretainedValue()
    }

    /// Real-time safe. `swap` runs now; its `replaced` parts go back to the control thread.
    func swapped(_ swap: EngineSwap) {
        replaced.store(Unmanaged.passUnretained(swap), ordering: .releasing)
    }

    /// Control thread: the last swap done, with what it replaced, once (nil: none new).
    func takeReplaced() -> EngineSwap? {
        replaced.exchange(nil, ordering: .acquiring)?.takeRetainedValue()
    }
}

/// An engine built at the server's new rate, with the recording's new take, and — once the
/// process thread has swapped it in — what it replaced.
// @unchecked: the control thread fills it before `offer` (a releasing store) and reads
// `replaced…` only after `takeReplaced` (an acquiring load); the process thread sets them in
// between, alone.
public final class EngineSwap: @unchecked Sendable {
    public let engine: RealtimeEngine
    public let recorder: OutputRecorder?
    let writer: OutputRecorder.Writer?
    public internal(set) var replacedEngine: RealtimeEngine?
    var replacedWriter: OutputRecorder.Writer?
    /// Frames of the new rate the server ran while the engine was parked (skipped in the new one).
    public internal(set) var silentFrames = 0

    public init(engine: RealtimeEngine, recorder: OutputRecorder?) {
        self.engine = engine
        self.recorder = recorder
        writer = recorder?.makeWriter()
    }
}
