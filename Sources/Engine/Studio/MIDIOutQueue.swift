import Voices
import Realtime

/// The notes fired voices send to `midi_out`: a note-on at the frame the voice fires and its
/// note-off a fixed length later. Preallocated; the process thread fills and flushes it.
///
/// JACK will not sort an output port's events, so each period's events are written in frame
/// order, a note-off before a note-on at the same frame (a retriggered note stays on). Note-ons
/// arrive in frame order and note-offs nearly so (one length per voice), so each kind has its own
/// queue kept sorted by frame, and a period's events are the two merged: firing thousands of
/// voices at once costs a constant per note, not a scan of everything pending.
package final class MIDIOutQueue {
    struct Note: BitwiseCopyable {
        var frame: Int64
        var status: UInt8
        var key: UInt8
        var velocity: UInt8
    }

    /// Notes of one kind, sorted by frame: a ring of fixed capacity.
    struct SortedNotes: ~Copyable {
        private let slots: FixedBuffer<Note>
        private var head = 0
        private(set) var count = 0

        init(capacity: Int) {
            slots = FixedBuffer(capacity: max(capacity, 1), repeating: Note(frame: 0, status: 0, key: 0, velocity: 0))
        }

        /// Real-time safe. The note at position `index` from the earliest.
        @inline(__always)
        subscript(index: Int) -> Note { slots[(head + index) % slots.capacity] }

        /// Real-time safe. Inserts in frame order (after notes of the same frame): from the end, so
        /// a note later than everything pending costs one comparison. The caller checks room.
        mutating func insert(_ note: Note) {
            var index = count
            while index > 0 && note.frame < self[index - 1].frame {
                slots[(head + index) % slots.capacity] = self[index - 1]
                index -= 1
            }
            slots[(head + index) % slots.capacity] = note
            count += 1
        }

        /// Real-time safe.
        mutating func removeFirst() {
            head = (head + 1) % slots.capacity
            count -= 1
        }
    }

    let capacity: Int
    /// Room in each queue: half the capacity (every note-on brings its note-off).
    private let perKind: Int
    private var ons: SortedNotes
    private var offs: SortedNotes
    /// Notes the queue or the port had no room for (counted, never blocking).
    /// Where the notes it had no room for are counted (`midiNotesDropped`).
    private let counters: EngineCounters

    init(capacity: Int = 1024, counters: EngineCounters) {
        self.capacity = capacity
        self.counters = counters
        perKind = capacity / 2
        ons = SortedNotes(capacity: perKind)
        offs = SortedNotes(capacity: perKind)
    }

    /// Notes waiting (tests).
    var count: Int { ons.count + offs.count }

    /// Real-time safe. A note-on at `frame` and its note-off `length` frames later.
    func noteOn(frame: Int64, channel: UInt8, key: UInt8, velocity: Float, length: Int64) {
        guard ons.count < perKind && offs.count < perKind else { counters.add(.midiNotesDropped); return }
        let level = UInt8(min(max((velocity * 127).rounded(), 1), 127))
        ons.insert(Note(frame: frame, status: 0x90 | channel, key: key, velocity: level))
        offs.insert(Note(frame: frame + max(length, 1), status: 0x80 | channel, key: key, velocity: 0))
    }

    /// Real-time safe. The earliest pending note due before `end` (a note-off first within a
    /// frame), taken off its queue; nil when none is due.
    private func popDue(before end: Int64) -> Note? {
        let on = ons.count > 0 && ons[0].frame < end ? ons[0] : nil
        let off = offs.count > 0 && offs[0].frame < end ? offs[0] : nil
        if let off, on == nil || off.frame <= on!.frame {
            offs.removeFirst()
            return off
        }
        if on != nil { ons.removeFirst() }
        return on
    }

    /// Real-time safe. Hands the notes due in [`start`, `start + frames`) to `write` in the order a
    /// port takes them, each at its offset into the period, and keeps the rest. A note `write`
    /// has no room for (false) is counted. Returns the number handed over.
    @discardableResult
    func flush(start: Int64, frames: Int, into write: (_ offset: Int, _ event: MIDIEvent) -> Bool) -> Int {
        let end = start + Int64(frames)
        var written = 0
        while let note = popDue(before: end) {
            if !write(Int(max(note.frame - start, 0)), MIDIEvent(status: note.status, data1: note.key, data2: note.velocity)) {
                counters.add(.midiNotesDropped)
            }
            written += 1
        }
        return written
    }

    /// Real-time safe. Offline: drops what is due before `end` (no port to write to).
    func discard(before end: Int64) {
        while popDue(before: end) != nil {}
    }

    /// The notes due before `end`, in the order `flush` writes them (tests).
    func drain(before end: Int64, _ body: (Note) -> Void) {
        while let note = popDue(before: end) { body(note) }
    }

    /// Control thread, neither queue in use: every note `old` still had to send, at the frame
    /// `moved` gives it (a rebuilt engine's, at the server's new rate), so no note hangs.
    func takeOver(_ old: MIDIOutQueue, moved: (Int64) -> Int64) {
        old.drain(before: .max) { note in
            var note = note
            note.frame = moved(note.frame)
            if note.status & 0xF0 == 0x90 {
                guard ons.count < perKind else { return counters.add(.midiNotesDropped) }
                ons.insert(note)
            } else {
                guard offs.count < perKind else { return counters.add(.midiNotesDropped) }
                offs.insert(note)
            }
        }
    }
}
