import Synchronization

/// The standard library's `Atomic` stored inline in a final class: reading or counting it on the
/// process thread is one atomic instruction. swift-atomics' `ManagedAtomic` is a class of its
/// own, and each operation on one costs a retain, a dynamic call and a release around that
/// instruction (seen in the process callback's disassembly); the per-period counters use this.
/// The counting names are swift-atomics', so each counter reads the same whichever it is.
extension Atomic where Value == Int {
    /// Real-time safe.
    @_semantics("atomics.requires_constant_orderings") @_transparent
    public func wrappingIncrement(by amount: Int = 1, ordering: AtomicUpdateOrdering) {
        _ = wrappingAdd(amount, ordering: ordering)
    }

    /// Real-time safe.
    @_semantics("atomics.requires_constant_orderings") @_transparent
    public func wrappingDecrement(by amount: Int = 1, ordering: AtomicUpdateOrdering) {
        _ = wrappingSubtract(amount, ordering: ordering)
    }
}
