import CJack
import Foundation

/// Another client on the transport: it starts and stops the transport and reads its position
/// (what Ardour or Hydrogen see), and can be the timebase master itself at a fixed tempo.
public final class TransportPeer {
    var client: OpaquePointer { owned.pointer }
    private let owned: OwnedClient
    private var masterBPM = 0.0

    public init(name: String) throws {
        let client = try openPeerClient(name, role: "transport peer")
        owned = OwnedClient(client)
        guard jack_activate(client) == 0 else { throw JackPeerFailure("transport peer: activate failed") }
    }

    public func start() { jack_transport_start(client) }
    public func stop() { jack_transport_stop(client) }
    /// Moves the transport to `frame` (the server takes it at its next cycle).
    public func locate(_ frame: UInt32) { _ = jack_transport_locate(client, frame) }
    /// Whether the transport rolls now.
    public var rolling: Bool {
        var position = jack_position_t()
        let state = jack_transport_query(client, &position)
        return state.rawValue == JackTransportRolling.rawValue
    }

    /// The transport's BBT as a slave sees it: nil when no master fills it.
    public var bbt: (bpm: Double, bar: Int32, beat: Int32, tick: Int32, beatsPerBar: Float, ticksPerBeat: Double)? {
        var position = jack_position_t()
        _ = jack_transport_query(client, &position)
        guard position.valid.rawValue & JackPositionBBT.rawValue != 0 else { return nil }
        return (position.beats_per_minute, position.bar, position.beat, position.tick, position.beats_per_bar, position.ticks_per_beat)
    }

    /// The transport's frame and its BBT as ticks since bar 1, beat 1 (as one query sees them
    /// together): nil when no master fills the BBT.
    public var framedTicks: (frame: UInt32, ticks: Double)? {
        var position = jack_position_t()
        _ = jack_transport_query(client, &position)
        guard position.valid.rawValue & JackPositionBBT.rawValue != 0 else { return nil }
        let beats = Double(position.bar - 1) * Double(position.beats_per_bar) + Double(position.beat - 1)
        return (position.frame, beats * position.ticks_per_beat + Double(position.tick))
    }

    /// Becomes the timebase master at a fixed `bpm` (4/4, 1920 ticks a beat, from frame 0).
    public func becomeMaster(bpm: Double) throws {
        masterBPM = bpm
        let status = jack_set_timebase_callback(client, 0, { _, _, position, _, context in
            let peer = Unmanaged<TransportPeer>.fromOpaque(context!).takeUnretainedValue()
            let beats = Double(position!.pointee.frame) * peer.masterBPM / (60 * Double(position!.pointee.frame_rate))
            position!.pointee.valid = jack_position_bits_t(rawValue: position!.pointee.valid.rawValue | JackPositionBBT.rawValue)
            position!.pointee.bar = Int32(beats / 4) + 1
            position!.pointee.beat = Int32(Int(beats) % 4) + 1
            position!.pointee.tick = Int32((beats - beats.rounded(.down)) * 1920)
            position!.pointee.bar_start_tick = 0
            position!.pointee.beats_per_bar = 4
            position!.pointee.beat_type = 4
            position!.pointee.ticks_per_beat = 1920
            position!.pointee.beats_per_minute = peer.masterBPM
        }, Unmanaged.passUnretained(self).toOpaque())
        guard status == 0 else { throw JackPeerFailure("transport peer: timebase refused (\(status))") }
    }

    /// Closes the JACK client (idempotent; also when the peer is released, before its buffers go).
    public func close() { owned.close() }

    deinit { owned.close() }
}
