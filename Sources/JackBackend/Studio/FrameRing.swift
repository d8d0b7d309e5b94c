import CJack

/// JACK's lock-free byte ring (`jack_ringbuffer_t`, one writer thread and one reader thread),
/// locked into memory so the process thread's writes never fault a page in.
// @unchecked: a container; jack_ringbuffer orders its one writer's and one reader's accesses itself.
final class FrameRing: @unchecked Sendable {
    private let ring: UnsafeMutablePointer<jack_ringbuffer_t>

    /// Control thread.
    init(bytes: Int) {
        ring = jack_ringbuffer_create(bytes)
        jack_ringbuffer_mlock(ring)
    }

    deinit { jack_ringbuffer_free(ring) }

    /// Real-time safe. Bytes the writer may write now.
    var writeSpace: Int { jack_ringbuffer_write_space(ring) }

    /// Real-time safe. The writer's: copies `bytes` in (`writeSpace` must allow it).
    func write(_ source: UnsafeRawPointer, bytes: Int) {
        _ = jack_ringbuffer_write(ring, source.assumingMemoryBound(to: CChar.self), bytes)
    }

    /// Bytes the reader may read now.
    var readSpace: Int { jack_ringbuffer_read_space(ring) }

    /// The reader's: copies `bytes` out (`readSpace` must allow it).
    func read(into destination: UnsafeMutableRawPointer, bytes: Int) {
        _ = jack_ringbuffer_read(ring, destination.assumingMemoryBound(to: CChar.self), bytes)
    }
}
