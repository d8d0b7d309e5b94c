import CJack
import Inputs
import Realtime
import Engine
import Synchronization

/// What the process callback reaches through its context pointer: the engine, our ports and
/// what runs beside the engine on the process thread (MIDI out, meters, recording, transport).
/// The engine and the recording's writer are replaced at a sample-rate change (`ServerRate`).
package final class ProcessHost {
    /// The process thread's: swapped for one rebuilt at the server's rate when it changes.
    private(set) var engine: RealtimeEngine
    /// The engine as other threads hold it (the same for every engine swapped in).
    let engineHandle: EngineHandle
    let serverRate: ServerRate
    let left, right, midiOut, midiIn, inLeft, inRight: OpaquePointer
    /// The shared grid's port, when leading (`grid_out`) or following (`grid_in`).
    let gridOut, gridIn: OpaquePointer?
    /// Each voice's or group's ports (left, right, bus after bus).
    private let busPorts: ContiguousArray<OpaquePointer>
    /// Every MIDI port the engine writes, and what it writes there: `midi_out`, `grid_out`, each voice's.
    private let midiPorts: ContiguousArray<(port: OpaquePointer, carries: RealtimeEngine.MIDIPort)>
    weak var owner: JackClient?
    /// Our client, for transport queries from the process thread.
    private let handle: OpaquePointer
    /// Under PipeWire, JACK's latency callback leaves setting our ports' latencies to the
    /// control thread (`LatencyReport`), and marks here that it asked.
    let setsLatenciesOnTheControlThread = JackServerIdentity.current.isPipeWire
    let latenciesRequested = Atomic<Bool>(false)
    private let periodTimings: SPSCRing<UInt64>.Producer?
    private let cycleDeadline: CycleDeadline?
    /// Frames run since the deadline was last pushed back.
    private var framesSinceDeadline = 0
    private let meter: OutputMeter?
    private var recorder: OutputRecorder.Writer?
    private let followsTransport: Bool
    private let leadsTransport: Bool
    private let link: LinkBridge?
    /// `--midi-clock`: the transport as `clock_out` last told it (rolling, and its frame).
    private let sendsMIDIClock: Bool
    private var clockRolling = false
    private var clockTransportFrame: jack_nframes_t = 0
    private let timebase: TransportTimebase
    private var position = jack_position_t()
    /// The transport's frame and state in this cycle, for the timebase callback after it.
    private var cycleTransportFrame: jack_nframes_t = 0
    private var cycleRolling = false
    /// Silent frames not yet given to the meter (`measure`).
    private var heldSilence = 0
    /// The process thread's id from its first period on, when it names itself `pj-process` (0
    /// before), for the control thread to give it its name back (`restoreProcessThreadName`).
    private let processThreadID = Atomic<Int32>(0)
    /// Which of `midi_in`, `in_L`, `in_R`, `grid_in` and the MIDI outputs are connected (`linkBit`).
    let links: PortLinks
    /// MIDI outputs left empty since they lost their last connection (their `linkBit`s): not
    /// written again until one comes back.
    private var emptiedMIDIOutputs: UInt64 = 0
    /// Lost cycles, told apart from late readings of JACK's frame time.
    private var gaps: CycleGapDetector
    /// JACK's frame after the last cycle the engine ran.
    private var engineRanUntil: jack_nframes_t = 0
    /// While parked (the server's rate is not the engine's): JACK's frame where the engine stopped.
    private var parkedAt: jack_nframes_t?

    init(engine: RealtimeEngine, ports: [OpaquePointer], client: JackClient, handle: OpaquePointer, options: JackClient.Options,
         serverRate: ServerRate) {
        self.engine = engine
        engineHandle = engine.handle
        self.serverRate = serverRate
        (left, right, midiOut, midiIn, inLeft, inRight) = (ports[0], ports[1], ports[2], ports[3], ports[4], ports[5])
        var extra = ports.dropFirst(6).makeIterator()
        gridOut = options.timebase != .off ? extra.next() : nil
        gridIn = options.followTransport ? extra.next() : nil
        let clockOut = options.midiClock ? extra.next() : nil
        sendsMIDIClock = clockOut != nil
        busPorts = ContiguousArray((0..<options.outputs.audioPorts.count).map { _ in extra.next()! })
        let voiceMIDIPorts = (0..<options.outputs.midiPorts.count).map { (port: extra.next()!, carries: RealtimeEngine.MIDIPort.voice($0)) }
        midiPorts = ContiguousArray([(midiOut, .combined)] + (gridOut.map { [($0, .grid)] } ?? []) + (clockOut.map { [($0, .clock)] } ?? [])
                                    + voiceMIDIPorts)
        links = PortLinks(ports: [midiIn, inLeft, inRight, gridIn ?? midiIn] + midiPorts.prefix(Self.watchedMIDIOutputs).map(\.port))
        owner = client
        self.handle = handle
        periodTimings = options.periodTimings?.producer
        cycleDeadline = options.cycleDeadline
        meter = options.meter
        recorder = options.recorder?.makeWriter()
        followsTransport = options.followTransport
        leadsTransport = options.timebase != .off
        link = options.link.map { LinkBridge(session: $0) }
        timebase = TransportTimebase(sampleRate: engine.sampleRate)
        // A jump of more than a second is not a lost cycle but a new clock (a restarted server).
        gaps = CycleGapDetector(limit: engine.sampleRate,
                                periodChange: JackServerIdentity.current.isPipeWire ? .skipsUnrunCycles : .jumpsByTheDifference)
    }

    /// Control thread. Names the process thread `pj-process` again if it has run a period: after
    /// activation, whose new threads were just named `pj-jack`, perhaps the process thread with them.
    func restoreProcessThreadName() {
        let id = processThreadID.load(ordering: .acquiring)
        if id != 0 { ThreadName.restoreProcess(id) }
    }

    /// Real-time safe. The JACK process callback.
    func process(frames: jack_nframes_t) {
        // PipeWire's libjack (0.3.65, Debian 12's) stops a client's process thread with
        // pthread_cancel while it holds the lock around this callback: cancelled at a cancellation
        // point in here (a doorbell's eventfd write), the thread died holding it, and the next
        // callback that takes it waited for ever (seen once in jack_deactivate). Cancellation waits
        // until the period is over: two flag updates, no system call.
        var cancelState: Int32 = 0
        pthread_setcancelstate(Int32(PTHREAD_CANCEL_DISABLE), &cancelState)
        pj_process_order_begin()
        ProcessThread.enter()
        defer {
            ProcessThread.exit()
            pj_process_order_end()
            pthread_setcancelstate(cancelState, nil)
        }
        if processThreadID.load(ordering: .relaxed) == 0 {
            processThreadID.store(ThreadName.setProcess(), ordering: .releasing)
        }
        let started = periodTimings == nil ? 0 : Self.monotonicNanoseconds()
        let outLeft = jack_port_get_buffer(left, frames).assumingMemoryBound(to: Float.self)
        let outRight = jack_port_get_buffer(right, frames).assumingMemoryBound(to: Float.self)
        let reading = jack_last_frame_time(handle)
        let rate = serverRate.rate.load(ordering: .relaxed)
        if let cycleDeadline {
            framesSinceDeadline += Int(frames)
            if framesSinceDeadline >= cycleDeadline.framesBetweenPushes(sampleRate: rate) {
                framesSinceDeadline = 0
                cycleDeadline.pushBack()
            }
        }
        let running = serverRate.engineState.load(ordering: .acquiring) == ServerRate.State.running
        if (rate != engine.sampleRate || !running) && !followRate(rate, reading: reading) {
            silence(frames: frames, left: outLeft, right: outRight)
            return
        }
        engineRanUntil = reading &+ frames
        // Held unretained for the period: only this thread replaces it (`followRate`, above), and
        // a retain and release of it every period cost more than the rest of a quiet period's
        // bookkeeping here.
        Unmanaged.passUnretained(engine)._withUnsafeGuaranteedRef { engine in
            run(engine, frames: frames, reading: reading, left: outLeft, right: outRight)
        }
        if let periodTimings { periodTimings.push(Self.monotonicNanoseconds() &- started) }
    }

    /// Real-time safe. The period on `engine` (the current one, held by the caller): the timeline
    /// kept on JACK's, the MIDI and the ports in, the engine run, the MIDI, meters and recording out.
    private func run(_ engine: RealtimeEngine, frames: jack_nframes_t, reading: jack_nframes_t,
                     left outLeft: UnsafeMutablePointer<Float>, right outRight: UnsafeMutablePointer<Float>) {
        let count = Int(frames)
        // Cycles JACK did not run us for: keep the engine's timeline (and the recording) on JACK's.
        switch gaps.cycle(reading: reading, frames: frames) {
        case .none: break
        case .skip(let gap):
            engine.skip(frames: gap)
            recorder?.writeSilence(frames: gap)
        case .rewind(let frames):
            engine.rewind(frames: frames)
            recorder?.drop(frames: frames)
        case .skipNow(let gap):
            engine.skip(frames: gap, soundingLate: true)
            recorder?.writeSilence(frames: gap)
        }
        let startStop = link?.session.settings.startStop ?? false
        if followsTransport || leadsTransport || startStop || sendsMIDIClock {
            // jack_transport_query only copies the shared position: it never blocks.
            let state = jack_transport_query(handle, &position)
            cycleTransportFrame = position.frame
            // Raw values: `==` on an imported C enum asks for its type metadata, which the first
            // call instantiates (an allocation and a lock) on this thread.
            cycleRolling = state.rawValue == JackTransportRolling.rawValue || state.rawValue == JackTransportLooping.rawValue
            if followsTransport, position.valid.rawValue & JackPositionBBT.rawValue != 0 { engine.followTransport(bpm: position.beats_per_minute) }
            engine.transportRolls(cycleRolling)
            if sendsMIDIClock { tellMIDIClock(engine, rate: engine.sampleRate) }
        }
        if let link { link.period(engine, cycleMicros: cycleMicros(reading: reading, frames: frames), rolling: startStop ? cycleRolling : nil) }
        let linked = links.mask()
        if linked & Self.midiInBit != 0 { receiveMIDI(jack_port_get_buffer(midiIn, frames), into: engine) }
        if let gridIn, linked & Self.gridInBit != 0 { receiveGrid(jack_port_get_buffer(gridIn, frames), into: engine) }
        // The voices' and groups' ports are written straight by the mixer.
        for bus in 0..<busPorts.count / 2 {
            engine.bindOutput(bus, left: jack_port_get_buffer(busPorts[2 * bus], frames).assumingMemoryBound(to: Float.self),
                              right: jack_port_get_buffer(busPorts[2 * bus + 1], frames).assumingMemoryBound(to: Float.self))
        }
        // An unconnected input is silence: the engine reads its own zeros rather than have JACK clear a buffer.
        var inputLeft: UnsafePointer<Float>?, inputRight: UnsafePointer<Float>?
        if engine.takesInput {
            if linked & Self.inLeftBit != 0 { inputLeft = UnsafePointer(jack_port_get_buffer(inLeft, frames).assumingMemoryBound(to: Float.self)) }
            if linked & Self.inRightBit != 0 { inputRight = UnsafePointer(jack_port_get_buffer(inRight, frames).assumingMemoryBound(to: Float.self)) }
        }
        engine.process(frames: count, left: outLeft, right: outRight, inputLeft: inputLeft, inputRight: inputRight, keepsMIDI: true)
        writeMIDI(engine, linked: linked, frames: frames)
        if let meter { measure(meter, engine, frames: count) }
        recorder?.write(left: outLeft, right: outRight, frames: count)
    }

    /// Real-time safe. `--midi-clock`: the transport's start, stop, or move while stopped, to
    /// `clock_out`, with the position in sixteenths (the BBT's, when a timebase fills it; else
    /// the transport's frame at the grid heart's tempo).
    private func tellMIDIClock(_ engine: RealtimeEngine, rate: Int) {
        guard cycleRolling != clockRolling || (!cycleRolling && position.frame != clockTransportFrame) else { return }
        var beats: Double
        if position.valid.rawValue & JackPositionBBT.rawValue != 0, position.ticks_per_beat > 0 {
            beats = Double(position.bar - 1) * Double(position.beats_per_bar) + Double(position.beat - 1) + Double(position.tick) / position.ticks_per_beat
        } else {
            let clock = engine.gridClock
            beats = Double(position.frame) * (clock.isRunning ? clock.bpm : 120) / (60 * Double(rate))
        }
        let sixteenths = beats.isFinite ? Int(max(0, min(beats * 4, 16_383))) : 0
        engine.midiClockTransport(rolling: cycleRolling, wasRolling: clockRolling, sixteenths: sixteenths)
        clockRolling = cycleRolling
        clockTransportFrame = position.frame
    }

    /// Real-time safe. When the frame JACK read at this callback's start (`reading`) began, on
    /// the server's clock (µs), by JACK's DLL: the cycle `jack_get_cycle_times` names (read
    /// late, the next one) moved to `reading` at its frame length.
    private func cycleMicros(reading: jack_nframes_t, frames: jack_nframes_t) -> Int64 {
        var cycleFrames: jack_nframes_t = 0, current: jack_time_t = 0, next: jack_time_t = 0, periodMicros: Float = 0
        // A period over ten seconds is no reading (its product below could pass Int64): the time now instead.
        guard jack_get_cycle_times(handle, &cycleFrames, &current, &next, &periodMicros) == 0, next > current,
              next - current < 10_000_000 else {
            return Int64(bitPattern: jack_get_time())
        }
        let offset = Double(Int32(bitPattern: reading &- cycleFrames))
        return Int64(bitPattern: current) + Int64(offset * Double(next - current) / Double(frames))
    }

    /// `links`' bits: `midi_in`, `in_L`, `in_R`, `grid_in`, then each of `midiPorts` (the first
    /// `watchedMIDIOutputs`; any after them are written as if connected).
    private static let midiInBit: UInt64 = 1, inLeftBit: UInt64 = 2, inRightBit: UInt64 = 4, gridInBit: UInt64 = 8
    private static let watchedMIDIOutputs = 60
    private static func linkBit(midiOutput index: Int) -> UInt64 { index < watchedMIDIOutputs ? 1 << UInt64(4 + index) : 0 }

    /// Real-time safe. Every MIDI output's events for the period: written where something is
    /// connected; where nothing is, dropped, and the port's buffer cleared once (JACK keeps an
    /// output's buffer as it was last written, and a reader that connects before we hear of it
    /// would read those events again every period).
    private func writeMIDI(_ engine: RealtimeEngine, linked: UInt64, frames: jack_nframes_t) {
        for index in 0..<midiPorts.count {
            let bit = Self.linkBit(midiOutput: index)
            if bit == 0 || linked & bit != 0 {
                MIDIPortWriter.write(engine, midiPorts[index].carries, into: jack_port_get_buffer(midiPorts[index].port, frames), frames: frames)
                emptiedMIDIOutputs &= ~bit
                continue
            }
            if emptiedMIDIOutputs & bit == 0 {
                jack_midi_clear_buffer(jack_port_get_buffer(midiPorts[index].port, frames))
                emptiedMIDIOutputs |= bit
            }
            engine.dropMIDI(midiPorts[index].carries, frames: Int(frames))
        }
    }

    /// Real-time safe. The period's meter block (the engine's master measured it). Silent periods (most, at rest) are held and
    /// measured together once they make a meter frame's worth (a sixtieth of a second; a second
    /// while nobody watches the meters) or sound comes: the ballistics give the same reading for
    /// one block of silence as for its parts, and the ring takes a write every few periods (once
    /// a second, unwatched) instead of every one.
    private func measure(_ meter: OutputMeter, _ engine: RealtimeEngine, frames: Int) {
        if engine.periodWasSilent {
            heldSilence += frames
            // Watched: a meter frame's worth; unwatched, a second's (nobody reads it sooner).
            guard heldSilence >= (meter.watched ? engine.sampleRate / 60 : engine.sampleRate) else { return }
        }
        if heldSilence > 0 {
            meter.measureSilence(frames: heldSilence)
            heldSilence = 0
        }
        if !engine.periodWasSilent { meter.record(engine.periodLevels) }
    }

    /// Real-time safe. The server runs at a rate the engine was not built for (it changed, or
    /// the server came back at another), or the engine is parked: the engine stops here —
    /// parked, while the control thread builds one at the new rate — and the rebuilt one is
    /// swapped in at the first cycle it is ready, with the frames since the old one stopped
    /// skipped in it, so its beats keep their time in seconds. A parked engine the control
    /// thread has not claimed runs on if the server is back at its rate. True when an engine at
    /// the server's rate runs from this cycle.
    private func followRate(_ rate: Int, reading: jack_nframes_t) -> Bool {
        if parkedAt == nil {
            parkedAt = engineRanUntil == 0 ? reading : engineRanUntil
            timebase.rateChanged(to: rate)
            // Running → parked; an engine the control thread claimed (before a reconnect) stays so.
            _ = serverRate.engineState.compareExchange(expected: ServerRate.State.running, desired: ServerRate.State.parked,
                                                       ordering: .releasing)
            engineHandle.controlBell.ring()  // the control thread claims it and builds its successor
        }
        if let swap = serverRate.take(for: rate) {
            swap.replacedEngine = engine
            swap.replacedWriter = recorder
            engine = swap.engine
            recorder = swap.writer
            swap.silentFrames = resume(rate, reading: reading)
            serverRate.swapped(swap)
            engineHandle.controlBell.ring()  // the control thread finishes the old engine and take
            return true
        }
        guard rate == engine.sampleRate, serverRate.engineState.compareExchange(
            expected: ServerRate.State.parked, desired: ServerRate.State.running, ordering: .acquiring).exchanged else { return false }
        _ = resume(rate, reading: reading)
        return true
    }

    /// Real-time safe. The engine (rebuilt, or the parked one) runs from `reading` on: the frames
    /// since the last one stopped are skipped in it — JACK's counter runs on through a rate
    /// change, in frames of the new rate (PipeWire's). How many.
    private func resume(_ rate: Int, reading: jack_nframes_t) -> Int {
        let waited = min(Int(reading &- parkedAt!), 60 * rate)
        parkedAt = nil
        gaps = CycleGapDetector(limit: rate, periodChange: gaps.periodChange)
        timebase.rateChanged(to: rate)
        serverRate.engineState.store(ServerRate.State.running, ordering: .releasing)
        engine.skip(frames: waited)
        return waited
    }

    /// Real-time safe. Parked: silence on every port.
    private func silence(frames: jack_nframes_t, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        left.update(repeating: 0, count: Int(frames))
        right.update(repeating: 0, count: Int(frames))
        // Index loops: a for-in's iterator would instantiate generic metadata here, allocating.
        for index in 0..<busPorts.count {
            jack_port_get_buffer(busPorts[index], frames).assumingMemoryBound(to: Float.self).update(repeating: 0, count: Int(frames))
        }
        for index in 0..<midiPorts.count { jack_midi_clear_buffer(jack_port_get_buffer(midiPorts[index].port, frames)) }
    }

    /// Real-time safe. Hands each three-byte message on `midi_in` to the engine at its frame
    /// offset (JACK gives them in time order; shorter ones, sysex and realtime bytes are skipped).
    private func receiveMIDI(_ buffer: UnsafeMutableRawPointer, into engine: RealtimeEngine) {
        var event = jack_midi_event_t()
        // Over Int: a Range of UInt32 has no prespecialised metadata, and a for-in over one
        // instantiates it (an allocation) the first time.
        for index in 0..<Int(jack_midi_get_event_count(buffer)) {
            guard jack_midi_event_get(&event, buffer, UInt32(index)) == 0, event.size >= 3, let bytes = event.buffer else { continue }
            engine.receiveMIDI(status: bytes[0], key: bytes[1], value: bytes[2], offset: Int(event.time))
        }
    }

    /// Real-time safe. Each grid beat on `grid_in` (a Song Position Pointer) to the engine at its offset.
    private func receiveGrid(_ buffer: UnsafeMutableRawPointer, into engine: RealtimeEngine) {
        var event = jack_midi_event_t()
        for index in 0..<Int(jack_midi_get_event_count(buffer)) {
            guard jack_midi_event_get(&event, buffer, UInt32(index)) == 0, event.size == 3, let bytes = event.buffer,
                  let beat = SharedGrid.beat(status: bytes[0], lsb: bytes[1], msb: bytes[2]) else { continue }
            engine.receiveGridBeat(position: beat, offset: Int(event.time))
        }
    }

    /// JACK's freewheel callback: the recorder waits for its disk rather than drop a block (it
    /// reads the client's flag).
    func freewheel(_ on: Bool) {
        owner?.freewheelChanged(on)
    }

    /// Real-time safe. JACK's timebase callback, right after `process` on the same thread.
    /// The BBT is computed for the frame the position will be published with: a position naming
    /// this cycle's own frame while rolling (PipeWire's) is seen beside the next cycle's frame.
    func timebase(position: UnsafeMutablePointer<jack_position_t>, frames: jack_nframes_t, newPosition: Bool) {
        ProcessThread.enter()
        defer { ProcessThread.exit() }
        let clock = engine.gridClock
        let bpm = clock.isRunning ? clock.bpm : TransportTimebase.idleBPM
        let named = position.pointee.frame
        let published = cycleRolling && !newPosition && named == cycleTransportFrame ? named &+ frames : named
        timebase.fill(position, bpm: bpm, newPosition: newPosition, publishedAt: published)
    }

    /// Real-time safe (clock_gettime on CLOCK_MONOTONIC is a vDSO call; it never blocks).
    @inline(__always)
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
