/// An object handed to the process thread, or back from it, in a control message or a ring:
/// one strong reference, taken off the real-time thread (`init(retaining:)`) and given up off it
/// (`release()`), so the process thread neither retains nor frees anything. Exactly one owner
/// releases it; a handle that is dropped unreleased leaks rather than freeing on the wrong thread.
// @unchecked: it moves between threads on purpose; only the thread that ends up with it
// touches the object (the process thread, or a control thread releasing it).
public struct RetainedObject: @unchecked Sendable, BitwiseCopyable, Equatable {
    private let reference: Unmanaged<AnyObject>

    /// Control thread. Takes a strong reference to `object`.
    public init(retaining object: AnyObject) {
        reference = .passRetained(object)
    }

    /// Real-time safe. Wraps a reference whose strong count the caller hands over.
    public init(handingOver reference: Unmanaged<AnyObject>) {
        self.reference = reference
    }

    /// Real-time safe. The object, for the thread that holds the handle (no retain).
    public var unmanaged: Unmanaged<AnyObject> { reference }

    /// Control thread. Gives up the reference (the object is freed here if it was the last).
    public func release() {
        reference.release()
    }

    public static func == (a: RetainedObject, b: RetainedObject) -> Bool {
        a.reference.toOpaque() == b.reference.toOpaque()
    }
}
