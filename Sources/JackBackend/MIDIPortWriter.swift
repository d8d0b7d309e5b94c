import CJack
import Engine

/// The engine's MIDI events for a period, written into a JACK MIDI output port's buffer: the
/// engine hands them over in the order JACK needs (JACK will not sort an output port's events),
/// each at its offset into the period.
enum MIDIPortWriter {
    /// Real-time safe. Clears `buffer` (a JACK MIDI port buffer for this period) and writes the
    /// period's events for `port` into it; an event the buffer has no room for is refused to the
    /// engine, which counts it.
    static func write(_ engine: RealtimeEngine, _ port: RealtimeEngine.MIDIPort, into buffer: UnsafeMutableRawPointer,
                      frames: jack_nframes_t) {
        jack_midi_clear_buffer(buffer)
        engine.flushMIDI(port, frames: Int(frames)) { offset, event in
            let size = event.size
            guard let bytes = jack_midi_event_reserve(buffer, jack_nframes_t(offset), size) else { return false }
            bytes[0] = event.status
            if size > 1 { bytes[1] = event.data1 }
            if size > 2 { bytes[2] = event.data2 }
            return true
        }
    }
}
