import Voices
import Realtime

/// An LV2 atom port's buffer holding a `Sequence` of timed events (lv2 atom.h's layout: an atom
/// header, the sequence body — unit, pad — then events of a frame time, a size, a type and the
/// data, each padded to 8 bytes). Allocated off the real-time thread; written and reset on it.
package struct AtomSequence: ~Copyable {
    /// 8-byte words, so every event starts aligned.
    private let words: FixedBuffer<UInt64>
    let capacityBytes: Int
    private let sequenceType: UInt32
    private let chunkType: UInt32

    init(capacityBytes: Int, sequenceType: UInt32, chunkType: UInt32) {
        words = FixedBuffer(capacity: capacityBytes / 8, repeating: 0)
        self.capacityBytes = capacityBytes / 8 * 8
        self.sequenceType = sequenceType
        self.chunkType = chunkType
    }

    var pointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(words.pointer) }

    /// Real-time safe. An input: an empty sequence in frames (unit 0).
    func resetAsInput() {
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
    func append(frame: Int64, type: UInt32, bytes: (UInt8, UInt8, UInt8), count: Int) -> Bool {
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
}
