import Atomics
import CJack
import Foundation

/// A JACK client that plays a note-on at a varying frame offset every few periods, and
/// remembers the JACK frame time of each: the drum pad of the latency row.
public final class MidiSender {
    var client: OpaquePointer { owned.pointer }
    private let owned: OwnedClient
    let port: OpaquePointer
    let note: UInt8
    let every: Int
    let capacity = 1 << 16
    let sent: UnsafeMutablePointer<Int64>
    let count = ManagedAtomic<Int>(0)
    private var period = 0
    /// A control change to send once, at offset 0 of the next period: controller << 8 | value, or −1.
    public let pendingControlChange = ManagedAtomic<Int>(-1)
    /// Periods from each note-on to its note-off, at the same offset (0: no note-offs).
    let noteLengthPeriods: Int
    private var noteOff: (period: Int, offset: Int)?

    public init(name: String, note: UInt8, everyPeriods: Int, noteLengthPeriods: Int = 0) throws {
        self.noteLengthPeriods = noteLengthPeriods
        let client = try openPeerClient(name, role: "MIDI sender")
        owned = OwnedClient(client)
        self.note = note
        every = everyPeriods
        port = jack_port_register(client, "out", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsOutput.rawValue), 0)!
        sent = .allocate(capacity: capacity)
        jack_set_process_callback(client, { frames, context in
            pj_process_order_begin()
            defer { pj_process_order_end() }
            Unmanaged<MidiSender>.fromOpaque(context!).takeUnretainedValue().process(frames)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else { throw JackPeerFailure("MIDI sender: activate failed") }
    }

    private func process(_ frames: jack_nframes_t) {
        let buffer = jack_port_get_buffer(port, frames)!
        jack_midi_clear_buffer(buffer)
        defer { period += 1 }
        let control = pendingControlChange.exchange(-1, ordering: .acquiringAndReleasing)
        if control >= 0 {
            var change: (UInt8, UInt8, UInt8) = (0xB0, UInt8(control >> 8), UInt8(control & 0x7F))
            withUnsafeBytes(of: &change) { bytes in
                _ = jack_midi_event_write(buffer, 0, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), 3)
            }
        }
        if let off = noteOff, off.period == period {
            var message: (UInt8, UInt8, UInt8) = (0x80, note, 64)
            withUnsafeBytes(of: &message) { bytes in
                _ = jack_midi_event_write(buffer, jack_nframes_t(off.offset), bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), 3)
            }
            noteOff = nil
        }
        guard period > 10, period % every == 0 else { return }
        let offset = (period * 37) % Int(frames)
        if noteLengthPeriods > 0 { noteOff = (period + noteLengthPeriods, offset) }
        var message: (UInt8, UInt8, UInt8) = (0x90, note, 100)
        let stored = count.load(ordering: .relaxed)
        guard stored < capacity else { return }
        withUnsafeBytes(of: &message) { bytes in
            _ = jack_midi_event_write(buffer, jack_nframes_t(offset), bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), 3)
        }
        sent[stored] = Int64(jack_last_frame_time(client)) + Int64(offset)
        count.store(stored + 1, ordering: .releasing)
    }

    public func connect(to destination: String) throws {
        guard jack_connect(client, "\(String(cString: jack_get_client_name(client))):out", destination) == 0 else {
            throw JackPeerFailure("cannot connect the MIDI sender to \(destination)")
        }
    }

    public var sentFrames: [Int64] { Array(UnsafeBufferPointer(start: sent, count: count.load(ordering: .acquiring))) }

    /// Closes the JACK client (idempotent; also when the peer is released, before its buffers go).
    public func close() { owned.close() }

    deinit { owned.close() }
}
