import CLV2
import Realtime
import Voices

/// An LV2 atom port's buffer holding a `Sequence` of timed events (lv2 atom.h's layout: an atom
/// header, the sequence body — unit, pad — then events of a frame time, a size, a type and the
/// data, each padded to 8 bytes). Allocated off the real-time thread; written and reset on it.
package struct AtomSequence: ~Copyable {
    /// 8-byte words, so every event starts aligned.
    private let words: FixedBuffer<UInt64>
    let capacityBytes: Int
    private let sequenceType: UInt32
    private let chunkType: UInt32

    package init(capacityBytes: Int, sequenceType: UInt32, chunkType: UInt32) {
        words = FixedBuffer(capacity: capacityBytes / 8, repeating: 0)
        self.capacityBytes = capacityBytes / 8 * 8
        self.sequenceType = sequenceType
        self.chunkType = chunkType
    }

    package var pointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(words.pointer) }

    /// Real-time safe. An input: an empty sequence in frames (unit 0).
    package func resetAsInput() {
        let raw = pointer
        raw.storeBytes(of: UInt32(8), toByteOffset: 0, as: UInt32.self)  // the body's size: unit and pad
        raw.storeBytes(of: sequenceType, toByteOffset: 4, as: UInt32.self)
        raw.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)
    }

    /// Real-time safe. An output: all its room offered to the plugin, as a Chunk.
    func resetAsOutput() {
        let raw = pointer
        raw.storeBytes(of: UInt32(capacityBytes - 8), toByteOffset: 0, as: UInt32.self)
        raw.storeBytes(of: chunkType, toByteOffset: 4, as: UInt32.self)
    }

    /// Real-time safe. Appends an event (the caller keeps frames in order); false when full.
    package func append(frame: Int64, type: UInt32, bytes: (UInt8, UInt8, UInt8), count: Int) -> Bool {
        let raw = pointer
        let used = Int(raw.load(fromByteOffset: 0, as: UInt32.self)) + 8
        let eventBytes = 16 + (count + 7) / 8 * 8
        guard used + eventBytes <= capacityBytes else { return false }
        raw.storeBytes(of: frame, toByteOffset: used, as: Int64.self)
        raw.storeBytes(of: UInt32(count), toByteOffset: used + 8, as: UInt32.self)
        raw.storeBytes(of: type, toByteOffset: used + 12, as: UInt32.self)
        raw.storeBytes(of: UInt64(0), toByteOffset: used + 16, as: UInt64.self)
        raw.storeBytes(of: bytes.0, toByteOffset: used + 16, as: UInt8.self)
        if count > 1 { raw.storeBytes(of: bytes.1, toByteOffset: used + 17, as: UInt8.self) }
        if count > 2 { raw.storeBytes(of: bytes.2, toByteOffset: used + 18, as: UInt8.self) }
        raw.storeBytes(of: UInt32(used - 8 + eventBytes), toByteOffset: 0, as: UInt32.self)
        return true
    }

    /// Real-time safe. Appends a `time:Position` object at `frame` (the caller keeps frames in
    /// order; `pj_time_prepare` has run); false when full.
    package func append(frame: Int64, position: TimePosition) -> Bool {
        let bar = position.bar
        var written = PJTimePosition(frame: position.frame, beat: position.beat, bar: bar.index, bar_beat: Float(bar.beat),
                                     beats_per_bar: Float(position.beatsPerBar), beats_per_minute: Float(position.beatsPerMinute),
                                     speed: Float(position.speed), beat_unit: position.beatUnit)
        return pj_time_append_position(pointer, UInt32(capacityBytes), frame, &written) != 0
    }
}
