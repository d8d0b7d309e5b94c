/// One MIDI message leaving the engine (a note-on or note-off on `midi_out` or a voice's port, a
/// grid beat on `grid_out`, a clock or a transport message on `clock_out`); the backend places
/// it at its offset into the period, `size` bytes of it. The engine writes no port itself, so an offline render links no JACK.
public struct MIDIEvent: BitwiseCopyable, Sendable, Equatable {
    public var status: UInt8
    public var data1: UInt8
    public var data2: UInt8

    @inlinable
    public init(status: UInt8, data1: UInt8, data2: UInt8) {
        self.status = status
        self.data1 = data1
        self.data2 = data2
    }

    /// Real-time safe. Its length in bytes: one for a real-time message (a clock, Start, Stop,
    /// Continue), two for a program change, channel pressure, a quarter frame or a song
    /// select, three otherwise.
    @inlinable
    public var size: Int {
        // Plain comparisons: a range pattern's `~=` can instantiate metadata on this thread.
        if status >= 0xF8 { return 1 }
        if (status >= 0xC0 && status <= 0xDF) || status == 0xF1 || status == 0xF3 { return 2 }
        return 3
    }
}
