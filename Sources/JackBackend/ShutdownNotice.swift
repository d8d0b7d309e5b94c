import Atomics
import Glibc
import Realtime

/// The server's word that it shut our client down: posted from JACK's shutdown callback, which
/// runs like a signal handler (no allocation, no lock), and read by the control thread.
// @unchecked: a container; the reason's bytes are written only before the releasing store of
// `posted` and read only after an acquiring load sees it.
final class ShutdownNotice: @unchecked Sendable {
    private let posted = ManagedAtomic<Bool>(false)
    private let reasonBuffer = FixedBuffer<CChar>(capacity: 256, repeating: 0)

    /// Signal-safe. Copies the reason (at most 255 bytes) into preallocated memory, then posts.
    func post(reason: UnsafePointer<CChar>?) {
        guard !posted.load(ordering: .acquiring) else { return }
        if let reason { strncpy(reasonBuffer.pointer, reason, 255) } else { reasonBuffer[0] = 0 }
        posted.store(true, ordering: .releasing)
    }

    /// Whether the server has gone (any thread).
    var isPosted: Bool { posted.load(ordering: .acquiring) }

    /// Why, once posted ("" when the server gave no reason); nil before.
    var reason: String? { isPosted ? String(cString: reasonBuffer.pointer) : nil }

    /// Control thread, once a new client is open: nothing posted.
    func clear() {
        reasonBuffer[0] = 0
        posted.store(false, ordering: .releasing)
    }
}
