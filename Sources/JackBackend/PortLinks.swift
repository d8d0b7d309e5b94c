import CJack
import Synchronization

/// Which of our ports have a connection, a bit each, for the process thread to leave the
/// others alone: an unconnected `midi_in` is not read, an unconnected MIDI output is not
/// written once it has been left empty, an unconnected audio input is not fetched (JACK would
/// clear it for us every period). JACK's port-connect callback recomputes the bits on its
/// notification thread; the process thread loads them once a period.
///
/// A connection made a moment ago is seen once its notification has come (a few
/// milliseconds): MIDI played into the new connection before that is not heard.
final class PortLinks: @unchecked Sendable {
    /// The ports watched, bit 0 first (at most 64; OpaquePointer handles, never dereferenced here).
    private let ports: [OpaquePointer]
    private let connected = Atomic<UInt64>(0)

    init(ports: [OpaquePointer]) {
        precondition(ports.count <= 64, "at most 64 watched ports")
        self.ports = ports
    }

    /// JACK's notification thread or the control thread: reads each port's connections again.
    func update() {
        var mask: UInt64 = 0
        for (bit, port) in ports.enumerated() where jack_port_connected(port) > 0 { mask |= 1 << UInt64(bit) }
        connected.store(mask, ordering: .releasing)
    }

    /// Real-time safe. The bits now: set where the port has a connection.
    @inline(__always)
    func mask() -> UInt64 { connected.load(ordering: .acquiring) }
}
