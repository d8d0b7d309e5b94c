import Inputs
import Realtime

/// One open page's outgoing messages, bounded: the publisher never waits for a page. A meter
/// frame replaces one the page has not taken yet (counted as dropped); deltas and events queue
/// up to `capacity`, and past that the queue is thrown away and the page gets a fresh snapshot
/// instead, so a slow page falls behind in time, never in consistency, and memory stays bounded.
final class PageConnection: Sendable {
    static let capacity = 512

    struct Batch {
        var snapshot = false
        var messages: [String] = []
        var meter: String?
    }

    private let pending = LockedBox(Batch())
    private let counters: WebCounters
    /// Rings the writer's doorbell; holds at most one ring.
    let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    init(counters: WebCounters) {
        self.counters = counters
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func offer(meter: String) {
        let replaced = pending.withLockedValue { batch in
            defer { batch.meter = meter }
            return batch.meter != nil
        }
        if replaced { counters.add(.meterFramesDropped) }
        ring.yield()
    }

    func offer(_ message: String) {
        let overflowed = pending.withLockedValue { batch in
            guard !batch.snapshot else { return false }
            guard batch.messages.count < Self.capacity else {
                batch.messages.removeAll()
                batch.snapshot = true
                return true
            }
            batch.messages.append(message)
            return false
        }
        if overflowed { counters.add(.resnapshots) }
        ring.yield()
    }

    /// The writer: everything waiting, in order (snapshot, then deltas and events, then the meter).
    func take() -> Batch {
        pending.withLockedValue { batch in
            defer { batch = Batch() }
            return batch
        }
    }

    func close() { ring.finish() }
}
