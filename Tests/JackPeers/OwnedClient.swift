import CJack

/// A peer's JACK client, closed once: by the peer's `close()`, or at the latest when the peer is
/// released, so that a test that throws early never leaves JACK calling into freed memory.
final class OwnedClient {
    let pointer: OpaquePointer
    private var closed = false

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    func close() {
        guard !closed else { return }
        closed = true
        jack_client_close(pointer)
    }

    deinit { close() }
}
