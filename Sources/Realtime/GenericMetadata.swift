/// A generic type's runtime metadata is made the first time some code asks for it, on that
/// code's thread, and making it allocates and locks. Builds that do not specialise generic code
/// (debug builds, calls across modules) ask for it on the process thread unless something asked
/// before: this asks, off that thread.
public enum GenericMetadata {
    /// Control thread. Makes each type's metadata now (an opaque call the optimiser keeps).
    @inline(never)
    public static func make(_ types: Any.Type...) {
        for type in types { _ = ObjectIdentifier(type) }
    }
}
