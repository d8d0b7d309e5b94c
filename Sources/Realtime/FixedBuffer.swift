/// Memory for the real-time path: allocated once (off the process thread), freed in `deinit`,
/// never copied (`~Copyable`, so no two owners can free it twice). Holds up to `capacity`
/// elements, the first `count` of them in use; `append` and `removeSwapping` make it a pool.
/// Indices are checked in debug builds only.
public struct FixedBuffer<Element: BitwiseCopyable>: ~Copyable {
    public let capacity: Int
    public var count: Int { used }
    @usableFromInline var used: Int
    @usableFromInline let base: UnsafeMutablePointer<Element>

    /// Control thread. `count` elements in use, every slot set to `value`.
    public init(capacity: Int, count: Int? = nil, repeating value: Element) {
        precondition(capacity >= 0)
        self.capacity = capacity
        used = count ?? capacity
        base = .allocate(capacity: max(1, capacity))
        base.initialize(repeating: value, count: max(1, capacity))
    }

    /// Control thread. Holds `elements`, all in use.
    public init(_ elements: [Element]) {
        capacity = elements.count
        used = elements.count
        base = .allocate(capacity: max(1, elements.count))
        elements.withUnsafeBufferPointer { if let source = $0.baseAddress { base.initialize(from: source, count: elements.count) } }
    }

    /// Control thread. `objects` as the process path reads them: uncounted (`Unmanaged`, read with
    /// `_withUnsafeGuaranteedRef`), where loading each from an array costs a retain and a release.
    /// Safe only while something else holds every one of them: the array they came from.
    public init<Object: AnyObject>(uncounted objects: some Sequence<Object>) where Element == Unmanaged<Object> {
        self.init(objects.map { .passUnretained($0) })
    }

    deinit { base.deallocate() }

    /// Real-time safe.
    @inlinable
    public subscript(index: Int) -> Element {
        get {
            assert(index >= 0 && index < capacity, "index \(index) outside 0..<\(capacity)")
            return base[index]
        }
        nonmutating set {
            assert(index >= 0 && index < capacity, "index \(index) outside 0..<\(capacity)")
            base[index] = newValue
        }
    }

    /// Real-time safe. The storage, for block operations (`VectorMath`, C calls).
    @inlinable
    public var pointer: UnsafeMutablePointer<Element> { base }

    /// Real-time safe. Adds at the end; false, changing nothing, when full.
    @inlinable @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        guard used < capacity else { return false }
        base[used] = element
        used += 1
        return true
    }

    /// Real-time safe. Removes the element at `index` by moving the last one into its place.
    @inlinable
    public mutating func removeSwapping(at index: Int) {
        assert(index >= 0 && index < used, "index \(index) outside 0..<\(used)")
        used -= 1
        base[index] = base[used]
    }

    /// Real-time safe. Sets how many elements are in use (at most `capacity`).
    @inlinable
    public mutating func setCount(_ newCount: Int) {
        assert(newCount >= 0 && newCount <= capacity)
        used = newCount
    }
}
