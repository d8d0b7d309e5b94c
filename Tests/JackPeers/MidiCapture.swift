import Atomics
import CJack
import Foundation

/// A JACK client with one MIDI input that records every 3-byte event with JACK's frame time:
/// the DAW that records pulsejack's midi_out.
public final class MidiCapture {
    public struct Event: Equatable, Sendable {
        public var frame: Int64
        public var status: UInt8
        public var key: UInt8
        public var velocity: UInt8
        public var isNoteOn: Bool { status & 0xF0 == 0x90 && velocity > 0 }
        public var isNoteOff: Bool { status & 0xF0 == 0x80 || (status & 0xF0 == 0x90 && velocity == 0) }
    }

    let client: OpaquePointer
    let port: OpaquePointer
    let capacity = 1 << 16
    let events: UnsafeMutablePointer<Event>
    let count = ManagedAtomic<Int>(0)
    /// Periods whose events were not in time order (JACK does not sort them).
    public let unordered = ManagedAtomic<Int>(0)

    public init(name: String) throws {
        let client = try openPeerClient(name, role: "MIDI capture")
        self.client = client
        port = jack_port_register(client, "in", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsInput.rawValue), 0)!
        events = .allocate(capacity: capacity)
        jack_set_process_callback(client, { frames, context in
            Unmanaged<MidiCapture>.fromOpaque(context!).takeUnretainedValue().process(frames)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else { throw JackPeerFailure("MIDI capture: activate failed") }
    }

    private func process(_ frames: jack_nframes_t) {
        let buffer = jack_port_get_buffer(port, frames)
        let start = Int64(jack_last_frame_time(client))
        var event = jack_midi_event_t()
        var stored = count.load(ordering: .relaxed)
        var last: jack_nframes_t = 0
        for index in 0..<jack_midi_get_event_count(buffer) where stored < capacity {
            guard jack_midi_event_get(&event, buffer, index) == 0, event.size == 3, let bytes = event.buffer else { continue }
            if event.time < last { unordered.wrappingIncrement(ordering: .relaxed) }
            last = event.time
            events[stored] = Event(frame: start + Int64(event.time), status: bytes[0], key: bytes[1], velocity: bytes[2])
            stored += 1
        }
        count.store(stored, ordering: .releasing)
    }

    public func connect(from source: String) throws {
        guard jack_connect(client, source, "\(String(cString: jack_get_client_name(client))):in") == 0 else {
            throw JackPeerFailure("cannot connect \(source) to the MIDI capture")
        }
    }

    public var received: [Event] { Array(UnsafeBufferPointer(start: events, count: count.load(ordering: .acquiring))) }

    public func close() { jack_client_close(client) }
}
