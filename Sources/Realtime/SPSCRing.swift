import Atomics

/// A lock-free single-producer/single-consumer ring of fixed-size values.
///
/// Capacity is a power of two; storage is allocated once in `init` and never again.
/// When full, `push` drops the newest value and counts it: the producer never blocks and the
/// consumer never waits. Use `Producer` on exactly one thread and `Consumer` on exactly one other.
// @unchecked: the slots are handed between exactly two threads by the acquire/release head and tail.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    public let capacity: Int
    @usableFromInline let storage: Storage

    /// Control thread. `minimumCapacity` is rounded up to a power of two.
    public init(minimumCapacity: Int) {
        precondition(minimumCapacity > 0 && minimumCapacity <= 1 << 24, "ring capacity out of range")
        var size = 1
        while size < minimumCapacity { size <<= 1 }
        capacity = size
        storage = Storage(capacity: size)
        // Each end's generic metadata, made here: the first push or pop would make it, an
        // allocation on whichever thread that is (unspecialised builds).
        GenericMetadata.make(Producer.self, Consumer.self)
    }

    deinit { storage.deallocate() }

    /// Values dropped because the ring was full.
    public var dropped: Int { storage.dropped.load(ordering: .relaxed) }

    /// Values waiting to be read (a snapshot: either side may move on at once).
    public var count: Int {
        storage.writeIndex.load(ordering: .acquiring) &- storage.readIndex.load(ordering: .acquiring)
    }

    public var producer: Producer { Producer(ring: self) }
    public var consumer: Consumer { Consumer(ring: self) }

    /// Raw pointers to the slots and the indices, copied into each side's handle so that the hot
    /// path touches no reference count (a shared refcount would bounce between the two threads).
    /// Each index and each side's cached copy of the other's sits on its own 128-byte block.
    @usableFromInline
    // @unchecked: raw pointers into the ring's memory; the ring's protocol orders every access.
    struct Storage: @unchecked Sendable {
        @usableFromInline let slots: UnsafeMutablePointer<Element>
        @usableFromInline let mask: Int
        @usableFromInline let block: UnsafeMutableRawPointer
        @inlinable static var line: Int { 128 }

        init(capacity: Int) {
            slots = .allocate(capacity: capacity)
            mask = capacity - 1
            block = .allocate(byteCount: 5 * Self.line, alignment: Self.line)
            block.initializeMemory(as: UInt8.self, repeating: 0, count: 5 * Self.line)
            for line in [0, 2, 4] {
                (block + line * Self.line).initializeMemory(as: UnsafeAtomic<Int>.Storage.self, to: .init(0))
            }
        }

        func deallocate() {
            slots.deallocate()
            block.deallocate()
        }

        @inlinable
        func atomic(_ line: Int) -> UnsafeAtomic<Int> {
            UnsafeAtomic(at: (block + line * Self.line).assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self))
        }

        /// Total values written; only the producer stores it.
        @inlinable var writeIndex: UnsafeAtomic<Int> { atomic(0) }
        /// The producer's last view of `readIndex` (producer only).
        @inlinable var producerCachedRead: UnsafeMutablePointer<Int> { (block + Self.line).assumingMemoryBound(to: Int.self) }
        /// Total values read; only the consumer stores it.
        @inlinable var readIndex: UnsafeAtomic<Int> { atomic(2) }
        /// The consumer's last view of `writeIndex` (consumer only).
        @inlinable var consumerCachedWrite: UnsafeMutablePointer<Int> { (block + 3 * Self.line).assumingMemoryBound(to: Int.self) }
        /// Values refused on a full ring; only the producer adds to it.
        @inlinable var dropped: UnsafeAtomic<Int> { atomic(4) }
    }

    /// The writing side. Owned by one thread (a sensor or control thread).
    // @unchecked: moved to its one producing thread; the head/tail atomics order the slots.
    public struct Producer: @unchecked Sendable {
        /// Keeps the ring alive; the hot path uses only `storage`.
        @usableFromInline let ring: SPSCRing
        @usableFromInline let storage: Storage
        @usableFromInline let capacity: Int

        init(ring: SPSCRing) {
            self.ring = ring
            storage = ring.storage
            capacity = ring.capacity
        }

        /// Real-time safe. Returns false (and counts a drop) when the ring is full.
        @inlinable @discardableResult
        public func push(_ value: Element) -> Bool {
            let write = storage.writeIndex.load(ordering: .relaxed)
            if write &- storage.producerCachedRead.pointee >= capacity {
                // Acquire pairs with the consumer's releasing store: the slot it freed is ours to reuse.
                storage.producerCachedRead.pointee = storage.readIndex.load(ordering: .acquiring)
                if write &- storage.producerCachedRead.pointee >= capacity {
                    storage.dropped.wrappingIncrement(ordering: .relaxed)
                    return false
                }
            }
            (storage.slots + (write & storage.mask)).initialize(to: value)
            // Release publishes the slot's contents before the new index.
            storage.writeIndex.store(write &+ 1, ordering: .releasing)
            return true
        }
    }

    /// The reading side. Owned by one thread (the process thread).
    // @unchecked: moved to its one consuming thread; the head/tail atomics order the slots.
    public struct Consumer: @unchecked Sendable {
        /// Keeps the ring alive; the hot path uses only `storage`.
        @usableFromInline let ring: SPSCRing
        @usableFromInline let storage: Storage

        init(ring: SPSCRing) {
            self.ring = ring
            storage = ring.storage
        }

        /// Real-time safe. Number of values readable now; a drain loop bounded by it reads only
        /// what was in the ring when it began.
        @inlinable
        public func available() -> Int {
            let write = storage.writeIndex.load(ordering: .acquiring)
            storage.consumerCachedWrite.pointee = write
            return write &- storage.readIndex.load(ordering: .relaxed)
        }

        /// Real-time safe.
        @inlinable
        public func pop() -> Element? {
            let read = storage.readIndex.load(ordering: .relaxed)
            if read == storage.consumerCachedWrite.pointee {
                // Acquire pairs with the producer's releasing store: the slot's contents are visible.
                storage.consumerCachedWrite.pointee = storage.writeIndex.load(ordering: .acquiring)
                if read == storage.consumerCachedWrite.pointee { return nil }
            }
            let value = storage.slots[read & storage.mask]
            storage.readIndex.store(read &+ 1, ordering: .releasing)
            return value
        }
    }
}
