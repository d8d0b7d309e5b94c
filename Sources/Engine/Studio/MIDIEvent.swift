/// One three-byte MIDI channel message leaving the engine (a note-on or note-off on `midi_out`
/// or a voice's port, a grid beat on `grid_out`); the backend places it at its offset into the
/// period. The engine writes no port itself, so an offline render links no JACK.
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
}
