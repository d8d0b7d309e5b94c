import Atomics
import Voices
import Realtime

/// The beat grid several engines share (an ensemble across machines). The timebase engine
/// (`--timebase`) sends each beat of its grid heart on `grid_out` as one MIDI Song Position
/// Pointer at the beat's frame, carrying the beat's position; engines that follow
/// (`--follow-transport`) take each one on `grid_in` as a beat of their grid heart at the
/// frame it arrives. MIDI, because NetJACK2 carries MIDI sample-accurately in every cycle but
/// only the transport's start and stop (not its tempo or bar/beat/tick) to a slave.
///
/// The grid heart is the ensemble's when the preset has one, else the first performer's.
package final class SharedGrid {
    /// A Song Position Pointer counts sixteenths in 14 bits: 4096 beats before it wraps (a
    /// multiple of every `every:` and of the bar, so the wrap keeps every voice's pattern).
    static let beatModulus: Int64 = 4096
    static let songPositionPointer: UInt8 = 0xF2
    /// The performer field of a grid beat in the event queue (no performer has this index).
    static let performer = UInt8.max

    /// `--timebase`: this period's grid beats (frame, position), for `grid_out`.
    let outFrames = FixedBuffer<Int64>(capacity: 16, repeating: 0)
    let outBeats = FixedBuffer<Int64>(capacity: 16, repeating: 0)
    var outCount = 0
    var sends = false

    /// `--follow-transport`: grid beats received and not yet applied (their positions, in order).
    private let pending = FixedBuffer<Int64>(capacity: 16, repeating: 0)
    private var pendingFirst = 0, pendingCount = 0
    var follows = false
    /// Once a grid beat has arrived, the grid heart beats only on the grid (its clock is off).
    var arrived = false

    /// What other threads read of it (the handle's).
    let counters: GridCounters

    init(counters: GridCounters) { self.counters = counters }

    /// Real-time safe. Keeps a beat for `grid_out` (dropped past 16 in one period: a period
    /// holds at most two beats at 300 BPM).
    func send(beat: Int64, at frame: Int64) {
        guard sends, outCount < outFrames.capacity else { return }
        outFrames[outCount] = frame
        outBeats[outCount] = beat
        outCount += 1
        counters.lastBeatFrame.store(frame, ordering: .relaxed)
    }

    /// Real-time safe. A grid beat at `position` arrived (applied later in this period).
    func receive(position: Int64) -> Bool {
        guard pendingCount < pending.capacity else { return false }
        pending[(pendingFirst + pendingCount) % pending.capacity] = position
        pendingCount += 1
        counters.received.wrappingIncrement(ordering: .relaxed)
        return true
    }

    /// Real-time safe. The position of the earliest received beat, as it is applied.
    func take(at frame: Int64) -> Int64? {
        guard pendingCount > 0 else { return nil }
        let position = pending[pendingFirst]
        pendingFirst = (pendingFirst + 1) % pending.capacity
        pendingCount -= 1
        counters.lastBeatFrame.store(frame, ordering: .relaxed)
        return position
    }

    /// Real-time safe. The three bytes of a grid beat: a Song Position Pointer at the beat, in
    /// sixteenths (four a beat), modulo 4096 beats.
    static func message(beat: Int64) -> (UInt8, UInt8, UInt8) {
        let sixteenths = (((beat % beatModulus) + beatModulus) % beatModulus) * 4
        return (songPositionPointer, UInt8(sixteenths & 0x7F), UInt8((sixteenths >> 7) & 0x7F))
    }

    /// Real-time safe. The beat a Song Position Pointer names, or nil for another message.
    package static func beat(status: UInt8, lsb: UInt8, msb: UInt8) -> Int64? {
        guard status == songPositionPointer, lsb < 0x80, msb < 0x80 else { return nil }
        return (Int64(msb) << 7 | Int64(lsb)) / 4
    }
}

/// The shared grid's counters, as any thread reads them.
package final class GridCounters: Sendable {
    /// Grid beats received.
    let received = ManagedAtomic<Int>(0)
    /// The frame of the last grid beat received or sent, −1 before the first.
    let lastBeatFrame = ManagedAtomic<Int64>(-1)
}
