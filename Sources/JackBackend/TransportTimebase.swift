import CJack

/// JACK timebase master from the heart (`run --timebase`): each cycle fills the transport
/// position's BBT with the live heart rate as beats_per_minute, so Ardour or Hydrogen follow it.
///
/// The beat count is integrated cycle by cycle at the tempo in effect, so a tempo change bends
/// the bar line forward instead of jumping it; after a relocation, the new frame is converted
/// at the current tempo. 4/4, 1920 ticks a beat.
///
/// The BBT is for the frame a transport query will see it beside. jackd2 hands the callback
/// the next cycle's position, published with it; PipeWire hands it the current cycle's and
/// publishes what we write with the next one. `ProcessHost` tells them apart by comparing the
/// position's frame with the cycle's own (read in `process`), and asks for the BBT one period
/// on where PipeWire would otherwise show it a period late.
package final class TransportTimebase {
    static let beatsPerBar = 4
    static let ticksPerBeat = 1920.0
    /// The tempo published before the heart has given one.
    static let idleBPM = 120.0
    private var sampleRate: Double
    private var beats = 0.0
    private var lastFrame: jack_nframes_t = 0
    private var started = false

    init(sampleRate: Int) { self.sampleRate = Double(sampleRate) }

    /// Real-time safe. The server's frames are counted at `rate` from now; the beats so far stay.
    func rateChanged(to rate: Int) { sampleRate = Double(rate) }

    /// Real-time safe. JACK's timebase callback: runs on the process thread after `process`.
    func fill(_ position: UnsafeMutablePointer<jack_position_t>, bpm: Double, newPosition: Bool, publishedAt frame: jack_nframes_t) {
        let beatsPerFrame = bpm / (60 * sampleRate)
        if newPosition || !started || frame < lastFrame {
            beats = Double(frame) * beatsPerFrame
        } else {
            beats += Double(frame - lastFrame) * beatsPerFrame
        }
        started = true
        lastFrame = frame
        let whole = beats.rounded(.down)
        let bar = Int(whole) / Self.beatsPerBar
        position.pointee.valid = jack_position_bits_t(rawValue: position.pointee.valid.rawValue | JackPositionBBT.rawValue)
        position.pointee.bar = Int32(bar + 1)
        position.pointee.beat = Int32(Int(whole) % Self.beatsPerBar + 1)
        position.pointee.tick = Int32(min((beats - whole) * Self.ticksPerBeat, Self.ticksPerBeat - 1))
        position.pointee.bar_start_tick = Double(bar * Self.beatsPerBar) * Self.ticksPerBeat
        position.pointee.beats_per_bar = Float(Self.beatsPerBar)
        position.pointee.beat_type = 4
        position.pointee.ticks_per_beat = Self.ticksPerBeat
        position.pointee.beats_per_minute = bpm
    }
}
