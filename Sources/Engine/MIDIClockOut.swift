import Realtime

/// `--midi-clock`: 24 clocks a beat on `clock_out`, each at its frame, following the grid heart
/// — whatever leads it: the heart, the transport or Ableton Link — and Start, Stop, Continue and
/// Song Position Pointer at the transport's changes, as a drum machine or a DAW follows them.
/// Collected while the engine renders, written by the backend after the period.
package final class MIDIClockOut {
    static let clock: UInt8 = 0xF8, start: UInt8 = 0xFA, resume: UInt8 = 0xFB, stop: UInt8 = 0xFC, songPosition: UInt8 = 0xF2
    /// The period's messages, in frame order: frame, and status with its two data bytes.
    let frames = FixedBuffer<Int64>(capacity: 256, repeating: 0)
    let messages = FixedBuffer<MIDIEvent>(capacity: 256, repeating: MIDIEvent(status: 0, data1: 0, data2: 0))
    var count = 0
    /// The last clock sent (clocks since the grid's beat 0); nil before the first.
    private var last: Int64?

    init() {}

    /// Real-time safe. A new period from `frame`: what an earlier one left (not written) goes.
    func periodBegins(at frame: Int64) {
        var kept = 0
        for index in 0..<count where frames[index] >= frame {
            frames[kept] = frames[index]
            messages[kept] = messages[index]
            kept += 1
        }
        count = kept
    }

    /// Real-time safe. The clocks whose frames fall in [`from`, `to`), where `clock`'s tempo
    /// holds. A clock that rounded to just before `from` (a tempo change moved it there) is sent
    /// at `from`, so none is lost; a jump of the grid (Link's alignment to a new timeline, the
    /// first clock) starts again from the first clock on.
    func collect(_ clock: HeartbeatClock, from: Int64, to: Int64) {
        guard let first = clock.midiClock(atOrAfter: from) else { return }
        var index = first
        if let last, last + 1 >= first - 1, last - first < Int64(HeartbeatClock.midiClocksPerBeat) { index = last + 1 }
        while let frame = clock.frame(ofMIDIClock: index), frame < to, count < frames.capacity {
            append(max(frame, from), MIDIEvent(status: Self.clock, data1: 0, data2: 0))
            last = index
            index += 1
        }
    }

    /// Real-time safe. The transport started, stopped or moved at `frame` (a period's first):
    /// Start from the song's beginning, else its Song Position Pointer (sixteenths) and Continue;
    /// Stop; a move while stopped, its position alone.
    func transport(rolling: Bool, wasRolling: Bool, sixteenths: Int, at frame: Int64) {
        let position = MIDIEvent(status: Self.songPosition, data1: UInt8(sixteenths & 0x7F), data2: UInt8((sixteenths >> 7) & 0x7F))
        if rolling && !wasRolling {
            if sixteenths == 0 {
                append(frame, MIDIEvent(status: Self.start, data1: 0, data2: 0))
            } else {
                append(frame, position)
                append(frame, MIDIEvent(status: Self.resume, data1: 0, data2: 0))
            }
        } else if !rolling && wasRolling {
            append(frame, MIDIEvent(status: Self.stop, data1: 0, data2: 0))
        } else if !rolling {
            append(frame, position)
        }
    }

    private func append(_ frame: Int64, _ message: MIDIEvent) {
        guard count < frames.capacity else { return }
        frames[count] = frame
        messages[count] = message
        count += 1
    }
}
