import Engine
import Foundation

/// `render --midi-clock FILE`: what `clock_out` would have sent, as a Standard MIDI File
/// (format 0, one track) whose tick is one frame: the division and the one tempo are chosen so
/// that ticks run at the sample rate (48 kHz: 24 000 ticks a quarter at 500 000 µs). Clock,
/// Start, Stop, Continue and Song Position Pointer are not channel messages, which a track
/// cannot hold bare: each is an escape event (`F7`, its length, its bytes), as the format allows.
enum MIDIClockFile {
    /// Ticks a quarter note and microseconds a quarter that make one tick a frame at `sampleRate`.
    static func timing(sampleRate: Int) -> (division: Int, microsecondsPerQuarter: Int)? {
        // A division of at most 15 bits, and a tempo a whole number of microseconds.
        for split in [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 40, 50, 64] where sampleRate % split == 0 && sampleRate / split <= 32_767 {
            return (sampleRate / split, 1_000_000 / split)
        }
        return nil
    }

    /// Writes `messages` (frames in order) at `sampleRate` to `path`.
    static func write(_ messages: [(frame: Int64, message: MIDIEvent)], sampleRate: Int, to path: String) throws {
        guard let timing = timing(sampleRate: sampleRate) else {
            throw OptionProblem("--midi-clock: a MIDI file cannot count frames at \(sampleRate) Hz; render at 44100 or 48000 Hz")
        }
        var track: [UInt8] = [0x00, 0xFF, 0x51, 0x03] + bigEndian(timing.microsecondsPerQuarter, bytes: 3)
        var last: Int64 = 0
        for (frame, message) in messages {
            track += variableLength(Int(max(frame - last, 0)))
            last = max(frame, last)
            let bytes = [message.status, message.data1, message.data2].prefix(message.size)
            track += [0xF7] + variableLength(bytes.count) + bytes
        }
        track += [0x00, 0xFF, 0x2F, 0x00]
        let header: [UInt8] = Array("MThd".utf8) + bigEndian(6, bytes: 4) + bigEndian(0, bytes: 2) + bigEndian(1, bytes: 2)
            + bigEndian(timing.division, bytes: 2)
        let file = header + Array("MTrk".utf8) + bigEndian(track.count, bytes: 4) + track
        do {
            try Data(file).write(to: URL(fileURLWithPath: path))
        } catch {
            throw OptionProblem("--midi-clock \(path): \(error.localizedDescription)")
        }
    }

    static func bigEndian(_ value: Int, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// A MIDI file's variable-length quantity: 7 bits a byte, the high bit on all but the last.
    static func variableLength(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)], rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }
}
