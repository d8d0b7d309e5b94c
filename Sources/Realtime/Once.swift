/// A result worked out once, by the first thread that asks for it, and kept (a library loaded at
/// run time). Never on the process thread: it takes a lock.
public final class Once<Success: Sendable, Failure: Error & Sendable>: Sendable {
    private let state = LockedBox<Result<Success, Failure>?>(nil)

    public init() {}

    /// The kept result, or `work`'s, kept.
    public func value(_ work: () -> Result<Success, Failure>) throws(Failure) -> Success {
        let result = state.withLockedValue { state -> Result<Success, Failure> in
            if let state { return state }
            let worked = work()
            state = worked
            return worked
        }
        return try result.get()
    }
}
