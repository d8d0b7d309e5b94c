import Voices
import Atomics
import CJack

/// The notes fired voices send to `midi_out`: a note-on at the frame the voice fires and its
/// note-off a fixed length later. Preallocated; the process thread fills and flushes it.
///
/// JACK will not sort an output port's events, so each period's events are written in frame
/// order, a note-off before a note-on at the same frame (a retriggered note stays on).
final class MIDIOutQueue {
    struct Note: BitwiseCopyable {
        var frame: Int64
        var status: UInt8
        var key: UInt8
        var velocity: UInt8
    }

    let capacity: Int
    private let pending: FixedBuffer<Note>
    private var count = 0
    /// Notes the queue or the port had no room for (counted, never blocking).
    private let dropped: ManagedAtomic<Int>

    init(capacity: Int = 1024, dropped: ManagedAtomic<Int>) {
        self.capacity = capacity
        self.dropped = dropped
        pending = FixedBuffer(capacity: capacity, repeating: Note(frame: 0, status: 0, key: 0, velocity: 0))
    }

    /// Real-time safe. A note-on at `frame` and its note-off `length` frames later.
    func noteOn(frame: Int64, channel: UInt8, key: UInt8, velocity: Float, length: Int64) {
        guard count + 2 <= capacity else { dropped.wrappingIncrement(ordering: .relaxed); return }
        let level = UInt8(min(max((velocity * 127).rounded(), 1), 127))
        insert(Note(frame: frame, status: 0x90 | channel, key: key, velocity: level))
        insert(Note(frame: frame + max(length, 1), status: 0x80 | channel, key: key, velocity: 0))
    }

    /// Real-time safe. Keeps `pending` sorted by frame, note-offs first within a frame; bounded
    /// by `capacity`.
    private func insert(_ note: Note) {
        var index = count
        while index > 0 && Self.precedes(note, pending[index - 1]) {
            pending[index] = pending[index - 1]
            index -= 1
        }
        pending[index] = note
        count += 1
    }

    /// Real-time safe.
    @inline(__always)
    private static func precedes(_ a: Note, _ b: Note) -> Bool {
        a.frame < b.frame || (a.frame == b.frame && a.status & 0xF0 == 0x80 && b.status & 0xF0 == 0x90)
    }

    /// Real-time safe. Writes the notes due in [`start`, `start + frames`) into a JACK MIDI port
    /// buffer (cleared first) at their offsets, and keeps the rest. Returns the number written.
    @discardableResult
    func flush(into buffer: UnsafeMutableRawPointer, start: Int64, frames: Int) -> Int {
        jack_midi_clear_buffer(buffer)
        let end = start + Int64(frames)
        var written = 0
        while written < count && pending[written].frame < end {
            let note = pending[written]
            if let bytes = jack_midi_event_reserve(buffer, jack_nframes_t(max(note.frame - start, 0)), 3) {
                bytes[0] = note.status
                bytes[1] = note.key
                bytes[2] = note.velocity
            } else {
                dropped.wrappingIncrement(ordering: .relaxed)
            }
            written += 1
        }
        removeFirst(written)
        return written
    }

    /// Real-time safe. Offline: drops what is due before `end` (no port to write to).
    func discard(before end: Int64) {
        var due = 0
        while due < count && pending[due].frame < end { due += 1 }
        removeFirst(due)
    }

    /// Real-time safe. Shifts the queue down by `n` (a forward copy: the regions overlap).
    private func removeFirst(_ n: Int) {
        guard n > 0 else { return }
        for index in 0..<(count - n) { pending[index] = pending[index + n] }
        count -= n
    }
}
