import Voices
import Realtime

/// A control event placed at its absolute frame.
package struct ScheduledEvent: BitwiseCopyable {
    var frame: Int64
    /// Arrival order: events at the same frame apply in the order they came.
    var sequence: UInt64
    var event: ControlMessage.Event
    /// Whose heart a tempo, beat or presence event is.
    var performer: UInt8 = 0
}

/// The time-ordered queue of pending events: a binary min-heap on (frame, arrival) in storage
/// allocated once. When full, the newest event is refused and the caller counts it.
///
/// Events due in the current period (immediate messages, MIDI) always find room: events due
/// later may fill only `capacity - reserve` slots, so a sender that schedules far ahead cannot
/// starve the rest. Each event due now leaves the queue within the period it arrived in.
/// Noncopyable: one owner, its storage freed with it.
package struct EventQueue: ~Copyable {
    var capacity: Int { heap.capacity }
    /// Slots only events due within the current period may take.
    let reserve: Int
    private let heap: FixedBuffer<ScheduledEvent>
    private(set) var count = 0
    private var nextSequence: UInt64 = 0

    /// Control thread.
    init(capacity: Int, reserve: Int = 0) {
        precondition(reserve < capacity)
        self.reserve = reserve
        heap = FixedBuffer(capacity: capacity, repeating: ScheduledEvent(frame: 0, sequence: 0, event: .heartbeat(strength: 0)))
    }

    /// Real-time safe. The earliest event's frame.
    var earliestFrame: Int64? { count > 0 ? heap[0].frame : nil }

    /// Real-time safe. Returns false when the queue is full: for an event due before
    /// `dueBefore` (the current period's end), only when every slot is taken; for a later one,
    /// when all but the reserve are.
    @_noLocks @_noAllocation
    mutating func insert(frame: Int64, _ event: ControlMessage.Event, performer: UInt8 = 0, dueBefore: Int64 = .max) -> Bool {
        guard count < (frame < dueBefore ? capacity : capacity - reserve) else { return false }
        var child = count
        let item = ScheduledEvent(frame: frame, sequence: nextSequence, event: event, performer: performer)
        nextSequence &+= 1
        count += 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(item, heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = item
        return true
    }

    /// Real-time safe. Removes and returns the earliest event.
    @_noLocks @_noAllocation
    mutating func popEarliest() -> ScheduledEvent? {
        guard count > 0 else { return nil }
        let top = heap[0]
        count -= 1
        if count > 0 {
            let last = heap[count]
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < count else { break }
                let right = left + 1
                let child = right < count && Self.precedes(heap[right], heap[left]) ? right : left
                guard Self.precedes(heap[child], last) else { break }
                heap[parent] = heap[child]
                parent = child
            }
            heap[parent] = last
        }
        return top
    }

    /// Real-time safe. Drops every pending event.
    mutating func removeAll() { count = 0 }

    @inline(__always)
    private static func precedes(_ a: ScheduledEvent, _ b: ScheduledEvent) -> Bool {
        a.frame != b.frame ? a.frame < b.frame : a.sequence < b.sequence
    }
}
