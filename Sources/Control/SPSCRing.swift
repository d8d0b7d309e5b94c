import Atomics

/// A lock-free single-producer/single-consumer ring of fixed-size values.
///
/// Capacity is a power of two; storage is allocated once in `init` and never again.
/// When full, `push` drops the newest value and counts it: the producer never blocks and the
/// consumer never waits. Use `Producer` on exactly one thread and `Consumer` on exactly one other.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    public let capacity: Int
    private let mask: Int
    private let slots: UnsafeMutablePointer<Element>
    /// Total values written; only the producer stores it.
    private let writeIndex = ManagedAtomic<Int>(0)
    /// Total values read; only the consumer stores it.
    private let readIndex = ManagedAtomic<Int>(0)
    private let droppedCount = ManagedAtomic<Int>(0)

    /// Control thread. `minimumCapacity` is rounded up to a power of two.
    public init(minimumCapacity: Int) {
        precondition(minimumCapacity > 0 && minimumCapacity <= 1 << 24, "ring capacity out of range")
        var size = 1
        while size < minimumCapacity { size <<= 1 }
        capacity = size
        mask = size - 1
        slots = .allocate(capacity: size)
    }

    deinit { slots.deallocate() }

    /// Values dropped because the ring was full.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Values waiting to be read (a snapshot: either side may move on at once).
    public var count: Int {
        writeIndex.load(ordering: .acquiring) &- readIndex.load(ordering: .acquiring)
    }

    public var producer: Producer { Producer(ring: self) }
    public var consumer: Consumer { Consumer(ring: self) }

    /// The writing side. Owned by one thread (a sensor or control thread).
    public struct Producer: @unchecked Sendable {
        let ring: SPSCRing

        /// Real-time safe. Returns false (and counts a drop) when the ring is full.
        @discardableResult
        public func push(_ value: Element) -> Bool {
            let write = ring.writeIndex.load(ordering: .relaxed)
            // Acquire pairs with the consumer's releasing store: the slot it freed is ours to reuse.
            let read = ring.readIndex.load(ordering: .acquiring)
            if write &- read >= ring.capacity {
                ring.droppedCount.wrappingIncrement(ordering: .relaxed)
                return false
            }
            (ring.slots + (write & ring.mask)).initialize(to: value)
            // Release publishes the slot's contents before the new index.
            ring.writeIndex.store(write &+ 1, ordering: .releasing)
            return true
        }
    }

    /// The reading side. Owned by one thread (the process thread).
    public struct Consumer: @unchecked Sendable {
        let ring: SPSCRing

        /// Real-time safe. Number of values readable now; a drain loop bounded by it reads only
        /// what was in the ring when it began.
        public func available() -> Int {
            ring.writeIndex.load(ordering: .acquiring) &- ring.readIndex.load(ordering: .relaxed)
        }

        /// Real-time safe.
        public func pop() -> Element? {
            let read = ring.readIndex.load(ordering: .relaxed)
            // Acquire pairs with the producer's releasing store: the slot's contents are visible.
            let write = ring.writeIndex.load(ordering: .acquiring)
            if read == write { return nil }
            let value = ring.slots[read & ring.mask]
            ring.readIndex.store(read &+ 1, ordering: .releasing)
            return value
        }
    }
}
