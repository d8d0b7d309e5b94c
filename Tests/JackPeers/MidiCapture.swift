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
        /// Its bytes: 1 for a real-time message (a clock, Start, Stop, Continue), else 2 or 3.
        public var size = 3
        public var isNoteOn: Bool { status & 0xF0 == 0x90 && velocity > 0 }
        public var isNoteOff: Bool { status & 0xF0 == 0x80 || (status & 0xF0 == 0x90 && velocity == 0) }
    }

    var client: OpaquePointer { owned.pointer }

    private let owned: OwnedClient
    let port: OpaquePointer
    let capacity = 1 << 16
    let events: UnsafeMutablePointer<Event>
    let count = ManagedAtomic<Int>(0)
    /// Each event's period and offset, placed in JACK's frame time by `log`.
    let eventPeriods: UnsafeMutablePointer<Int32>
    let log = PeriodLog(capacity: 1 << 20)
    let periods = ManagedAtomic<Int>(0)
    /// Periods whose events were not in time order (JACK does not sort them).
    public let unordered = ManagedAtomic<Int>(0)

    /// `server`: a server other than JACK_DEFAULT_SERVER's.
    public init(name: String, server: String? = nil) throws {
        let client = try openPeerClient(name, role: "MIDI capture", server: server)
        owned = OwnedClient(client)
        port = jack_port_register(client, "in", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsInput.rawValue), 0)!
        events = .allocate(capacity: capacity)
        eventPeriods = .allocate(capacity: capacity)
        jack_set_process_callback(client, { frames, context in
            pj_process_order_begin()
            defer { pj_process_order_end() }
            Unmanaged<MidiCapture>.fromOpaque(context!).takeUnretainedValue().process(frames)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else { throw JackPeerFailure("MIDI capture: activate failed") }
    }

    private func process(_ frames: jack_nframes_t) {
        let buffer = jack_port_get_buffer(port, frames)
        guard let period = log.record(reading: jack_last_frame_time(client), frames: frames) else { return }
        var event = jack_midi_event_t()
        var stored = count.load(ordering: .relaxed)
        var last: jack_nframes_t = 0
        for index in 0..<jack_midi_get_event_count(buffer) where stored < capacity {
            guard jack_midi_event_get(&event, buffer, index) == 0, event.size >= 1, event.size <= 3, let bytes = event.buffer else { continue }
            if event.time < last { unordered.wrappingIncrement(ordering: .relaxed) }
            last = event.time
            events[stored] = Event(frame: Int64(event.time), status: bytes[0], key: event.size > 1 ? bytes[1] : 0,
                                   velocity: event.size > 2 ? bytes[2] : 0, size: event.size)
            eventPeriods[stored] = Int32(period)
            stored += 1
        }
        count.store(stored, ordering: .releasing)
        periods.store(period + 1, ordering: .releasing)
    }

    public func connect(from source: String) throws {
        guard jack_connect(client, source, "\(String(cString: jack_get_client_name(client))):in") == 0 else {
            throw JackPeerFailure("cannot connect \(source) to the MIDI capture")
        }
    }

    /// Every event, its frame in JACK's frame time.
    public var received: [Event] {
        let total = periods.load(ordering: .acquiring)
        return (0..<count.load(ordering: .acquiring)).map { index in
            var event = events[index]
            event.frame += log.start(Int(eventPeriods[index]), of: total)
            return event
        }
    }

    /// Whether the capture ran in the cycle holding JACK frame `frame`: events sent in a cycle it
    /// was not run for never reached it.
    public func ran(at frame: Int64) -> Bool { log.ran(at: frame, of: periods.load(ordering: .acquiring)) }

    /// Where in JACK's frame time the capture was not run while it listened: a note there was not heard.
    public var gaps: [Range<Int64>] { log.gaps(of: periods.load(ordering: .acquiring)) }

    /// Closes the JACK client (idempotent; also when the peer is released, before its buffers go).
    public func close() { owned.close() }

    deinit { owned.close() }
}
