import Realtime

/// What the backend hands the engine before each period (MIDI, grid beats, the transport's
/// tempo, the port buffers its outputs write into) and takes from it after (the outputs, MIDI).
extension RealtimeEngine {
    /// Real-time safe. After `process`: output `number`'s samples for the period just rendered
    /// (its own buffers; a bound output was written where it was bound).
    public func output(_ number: Int) -> (left: UnsafePointer<Float>, right: UnsafePointer<Float>) {
        let (left, right) = mixer.output(number)
        return (UnsafePointer(left), UnsafePointer(right))
    }

    /// Real-time safe. Before `process`, for that period only: output `number` is written straight
    /// into `left` and `right` (a voice's or group's JACK port buffers), which hold the period.
    public func bindOutput(_ number: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        mixer.bindOutput(number, left: left, right: right)
    }

    /// The MIDI ports an engine writes: `midi_out` (every fired voice's note), a voice's own
    /// (`midi_out: voices`, by its number in the layout), and `grid_out` (the shared grid's beats).
    public enum MIDIPort: BitwiseCopyable, Sendable {
        case combined
        case voice(Int)
        case grid
        /// `clock_out` (`--midi-clock`).
        case clock
    }

    /// Real-time safe. After a `process(…, keepsMIDI: true)`: the period's events for `port`, in
    /// the order a port takes them (frame order, a note-off before a note-on at the same frame),
    /// each handed to `write` with its offset into the period. The backend writes them into its
    /// port (`JackBackend`'s `MIDIPortWriter`); `write` answers false when the port had no room
    /// (counted, `midiNotesDropped`; a grid beat that finds none is simply not sent).
    public func flushMIDI(_ port: MIDIPort, frames: Int, into write: (_ offset: Int, _ event: MIDIEvent) -> Bool) {
        let start = periodStart
        switch port {
        case .combined: firing.midiOut.flush(start: start, frames: frames, into: write)
        case .voice(let number): firing.flushVoiceMIDI(number, start: start, frames: frames, into: write)
        case .grid:
            let grid = hearts.grid
            for index in 0..<grid.outCount {
                let (status, lsb, msb) = SharedGrid.message(beat: grid.outBeats[index])
                _ = write(Int(grid.outFrames[index] - start), MIDIEvent(status: status, data1: lsb, data2: msb))
            }
        case .clock:
            guard let midiClock else { return }
            for index in 0..<midiClock.count where midiClock.frames[index] < start + Int64(frames) {
                _ = write(Int(midiClock.frames[index] - start), midiClock.messages[index])
            }
            midiClock.count = 0
        }
    }

    /// Real-time safe. After a `process(…, keepsMIDI: true)`, for a port nothing is connected to:
    /// the period's events for `port` are dropped, not written.
    public func dropMIDI(_ port: MIDIPort, frames: Int) {
        let end = periodStart + Int64(frames)
        switch port {
        case .combined: firing.midiOut.discard(before: end)
        case .voice(let number): firing.discardVoiceMIDI(number, before: end)
        case .grid: break  // the grid's beats are kept for one period only
        case .clock: midiClock?.count = 0
        }
    }

    /// Real-time safe. The grid heart's clock (the timebase publishes its tempo).
    package var gridClock: HeartbeatClock { hearts.clock(hearts.gridHeart) }

    /// Real-time safe. Before `process`: a MIDI channel message on `midi_in` at `offset` frames
    /// into the coming period, scheduled at its frame if the map plays it. MIDI is always due in
    /// this period, so it may use the queue's reserve. (`ProcessHost` decodes JACK's buffer.)
    public func receiveMIDI(status: UInt8, key: UInt8, value: UInt8, offset: Int) {
        if status & 0xF0 == 0xB0, let modulations, modulations.readsController[Int(key & 0x7F)] {
            schedule(.controller(number: key & 0x7F, value: value & 0x7F), at: framePosition + Int64(offset), periodEnd: .max)
        }
        guard let event = midiInput.event(status: status, key: key, value: value) else { return }
        schedule(event, at: framePosition + Int64(offset), periodEnd: .max)
    }

    /// Real-time safe. Before `process`: a grid beat (`grid_in`) at `offset` frames into the
    /// coming period, at beat `position` of the timebase's grid.
    public func receiveGridBeat(position: Int64, offset: Int) {
        guard hearts.grid.follows else { return }
        guard hearts.receiveGridBeat(position: position) else { return handle.counters.add(.queueOverflows) }
        schedule(.heartbeat(strength: 1), at: framePosition + Int64(offset), performer: SharedGrid.performer, periodEnd: .max)
    }

    /// Real-time safe. Before `process`: the external transport's tempo, taking effect at the
    /// start of this period when it changed.
    public func followTransport(bpm: Double) {
        hearts.followTransport(bpm: bpm, at: framePosition)
    }

    /// Positions the hosted plugins were told so far (tests; 0 when none takes time).
    package var pluginTimeChanges: Int { pluginTimeline?.changes ?? 0 }

    /// Real-time safe. Before `process`, where pulsejack follows the JACK transport
    /// (`--follow-transport`, `--timebase`, `--link-start-stop`, `--midi-clock`): whether it
    /// rolls this period. The hosted plugins' time stands while it does not.
    package func transportRolls(_ rolling: Bool) { pluginTimeline?.transportRolls = rolling }

    /// Real-time safe. Before `process`: the transport (JACK's) this period, for `--midi-clock`:
    /// Start, Stop, Continue and the Song Position Pointer (`sixteenths`) where it changed.
    package func midiClockTransport(rolling: Bool, wasRolling: Bool, sixteenths: Int) {
        midiClock?.transport(rolling: rolling, wasRolling: wasRolling, sixteenths: sixteenths, at: framePosition)
    }

    /// Real-time safe. Before `process`: Ableton Link's tempo (`--follow-link`), taking effect at
    /// the start of this period when it changed.
    package func followLink(bpm: Double) {
        hearts.followTransport(bpm: bpm, at: framePosition)
    }

    /// Real-time safe. Before `process`: the grid heart's phase at this period's first frame laid
    /// on `beat` of another grid (Ableton Link's session), when it is half a frame or more off.
    package func alignGrid(beat: Double) {
        hearts.alignGrid(beat: beat, at: framePosition)
    }
}
