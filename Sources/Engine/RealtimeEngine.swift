import Atomics
import Foundation
import Voices
import Realtime
import Plugins

/// Everything the process callback touches, made whole from an `EngineSetup` before activation.
///
/// Each period it drains the control rings, places every message at its absolute frame in the
/// event queue, and renders the period in sub-blocks split exactly at event and pulse frames,
/// so an event due at frame F sounds at frame F. The same engine runs under JACK and offline.
/// Its parts: the hearts (`EngineHearts`), the firing (`VoiceFiring`), the mix (`Mixer`), the
/// Tambour performance, the MIDI map and the master; other threads hold its `handle`.
/// Not `Sendable`: its state is the process thread's alone (the compiler keeps it there); other
/// threads reach it only through the rings and its `handle`.
public final class RealtimeEngine {
    public let sampleRate: Int
    /// The largest block rendered at once; longer periods are processed in chunks of it.
    public let maxFrames: Int
    /// What other threads hold: counters, published values, snapshots, plugins.
    public let handle: EngineHandle
    /// The handle's, held here: reached through the handle, it was retained and released every period.
    private let stateSnapshot: VoiceStateSnapshot
    /// How many outputs besides the master, and voice MIDI ports (the setup's layout).
    public let outputCount: Int
    public let voiceMIDIPortCount: Int
    /// Whether an input voice reads the audio input (otherwise the input ports go unread).
    public let takesInput: Bool
    /// Whether it sends and follows the shared grid (the setup's).
    public let sendsGrid: Bool
    public let followsGrid: Bool
    /// `--midi-clock`'s clocks and transport messages for `clock_out`.
    let midiClock: MIDIClockOut?
    /// The hosted plugins' time (nil: no plugin takes it).
    let pluginTimeline: PluginTimeline?

    /// The voices (the graph's).
    package var slots: ContiguousArray<VoiceSlot> { graph.slots }
    var mixer: Mixer
    var hearts: EngineHearts
    var firing: VoiceFiring
    var performance: TambourPerformance
    let midiInput: MIDIInputMap
    private let master: MasterStage
    /// The preset's modulations (nil: none, and nothing of theirs runs).
    let modulations: ModulationBank?
    /// LV2 effects on the whole mix (the graph's).
    var masterInserts: InsertChain? { graph.masterInserts }
    /// The voices and the master's inserts: what an insert address names.
    let graph: VoiceGraph
    private let sources: ContiguousArray<SPSCRing<ControlMessage>.Consumer>
    /// Every applied control message with its frame (`run --record-session`), when set.
    let appliedReports: SPSCRing<ControlMessage>.Producer?
    /// The settings a live picture asked to see, when set.
    let view: EngineView?
    var queue: EventQueue
    /// Silence, for input voices when the engine has no audio input (offline without --input).
    private let silentInput: FixedBuffer<Float>
    let counters: EngineCounters
    let retired: SPSCRing<RetainedObject>.Producer

    /// Whether the last period's output was silence without a sample computed: no voice, input
    /// voice, voice insert or master insert ran (the meter takes it as such).
    public private(set) var periodWasSilent = false
    /// Real-time safe. The output's levels in the last period that sounded (measured by the
    /// master stage's one pass over it).
    public var periodLevels: MeterBlock { master.levels }
    /// Whether this period made work for the control thread (an object retired, a plugin benched,
    /// the path latency changed, a session-log report): its bell rings once at the period's end.
    /// The process thread's own flag, in this object it touches anyway: an atomic elsewhere would
    /// be one more cold cache line read every period.
    var controlWork = false
    /// Whether a hosted plugin runs in a child process (its deadline is set each period).
    private let hostsPluginProcesses: Bool
    /// The voices' insert chains and hosted instruments, whose guards close each period, and the
    /// voices that swap clips: only these are visited each period, not every voice.
    private let voiceInserts: ContiguousArray<InsertChain>
    private let instrumentVoices: ContiguousArray<LV2InstrumentVoice>
    private let clipSlots: ContiguousArray<Int>
    /// Whether the engine's one voice is a block voice (a hosted instrument) with no inserts, no
    /// output or input of its own and no master inserts, so its quiet periods take
    /// `playQuietPeriod`. Tests turn it off to compare the two paths.
    package var playsQuietPeriods: Bool
    /// Periods `playQuietPeriod` rendered (tests).
    package internal(set) var quietPeriods = 0

    /// Absolute engine frame of the next frame to render (frames since the engine started).
    public internal(set) var framePosition: Int64 = 0
    /// Absolute frame of the block being processed: insert control changes count from it.
    var blockStart: Int64 = 0
    /// The frame the last period began at: its MIDI is flushed relative to it (the process thread's own copy).
    var periodStart: Int64 = 0

    public static let eventQueueCapacity = 4096
    /// Queue slots kept for events due in the current period (immediate messages and MIDI):
    /// future events may fill only the rest.
    public static let eventQueueReserve = 1024

    /// Offline. The engine `setup` describes, complete.
    public init(_ setup: EngineSetup) {
        ProcessThread.assertOutside("making an engine")
        sampleRate = setup.sampleRate
        maxFrames = setup.maxFrames
        handle = setup.handle
        stateSnapshot = setup.handle.stateSnapshot
        counters = handle.counters
        graph = VoiceGraph(slots: setup.slots, masterInserts: setup.masterInserts)
        let slots = setup.slots
        let active = ActiveVoices(slots: slots)
        let layout = setup.outputs
        precondition(layout.voiceBus.isEmpty || layout.voiceBus.count == slots.count, "an output layout for these voices")
        outputCount = layout.buses.count
        mixer = Mixer(slots: slots, active: active, sampleRate: sampleRate, maxFrames: maxFrames,
                      voiceOutputs: layout.voiceBus, count: layout.buses.count)
        takesInput = mixer.takesInput
        hearts = EngineHearts(setup)
        firing = VoiceFiring(setup, active: active)
        voiceMIDIPortCount = firing.voiceMIDIPortCount
        sendsGrid = setup.sendsGrid
        followsGrid = setup.followsGrid
        midiClock = setup.sendsMIDIClock ? MIDIClockOut() : nil
        performance = TambourPerformance(targets: setup.regionTargets, skipRegion: setup.skipRegion, modeVoices: setup.modeVoices)
        midiInput = MIDIInputMap(setup.midi)
        master = MasterStage(settings: setup.master, sampleRate: sampleRate, counters: counters)
        modulations = setup.modulations.isEmpty ? nil : ModulationBank(
            setup.modulations, signals: setup.signalNames.count, performers: hearts.count, sampleRate: sampleRate, slots: slots,
            graph: graph, master: master, published: handle.modulationReadings)
        sources = ContiguousArray(setup.sources.map(\.consumer))
        appliedReports = setup.appliedReports?.producer
        view = setup.view
        queue = EventQueue(capacity: Self.eventQueueCapacity, reserve: Self.eventQueueReserve)
        silentInput = FixedBuffer(capacity: maxFrames, repeating: 0)
        retired = handle.retiredClips.producer
        hostsPluginProcesses = graph.hostsPluginProcesses
        clipSlots = ContiguousArray(slots.indices.filter { slots[$0].clipVoice != nil })
        voiceInserts = ContiguousArray(slots.compactMap(\.inserts))
        instrumentVoices = ContiguousArray(slots.compactMap(\.instrumentVoice))
        pluginTimeline = graph.pluginsTakingTime ? PluginTimeline(sampleRate: sampleRate, beatsPerBar: setup.beatsPerBar) : nil
        if let pluginTimeline { graph.tell(pluginTimeline.time) }
        playsQuietPeriods = slots.count == 1 && slots[0].blockVoice != nil && slots[0].inserts == nil && slots[0].clipVoice == nil
            && setup.masterInserts == nil && layout.buses.isEmpty && !takesInput
        for slot in slots { slot.voice.prepare(sampleRate: sampleRate, maxFrames: maxFrames) }
        firing.planEarly(hearts: hearts, start: 0, end: 0)
    }

    /// Real-time safe. Renders `frames` frames into `left` and `right` (overwriting them), with
    /// `inputLeft`/`inputRight` the audio input that input voices process. `keepsMIDI`: the
    /// period's MIDI waits for `flushMIDI` (a live run's ports); otherwise it is dropped.
    public func process(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                        inputLeft: UnsafePointer<Float>? = nil, inputRight: UnsafePointer<Float>? = nil, keepsMIDI: Bool = false) {
        ProcessThread.enter()
        defer { ProcessThread.exit() }
        ProcessThread.flushDenormals()
        stateSnapshot.periodBegins()
        if hostsPluginProcesses { PluginProcess.beginPeriod(frames: frames, sampleRate: sampleRate) }
        periodStart = framePosition
        handle.publishedPeriodStart.store(framePosition, ordering: .relaxed)
        hearts.grid.outCount = 0
        midiClock?.periodBegins(at: framePosition)
        // A mix with no outputs of its own (most) skips the calls on them.
        if outputCount > 0 { mixer.startOutputs(frames: frames) }
        var sounded = masterInserts != nil
        // Most periods of a hosted instrument have nothing due in them: one call renders those.
        let begun = playsQuietPeriods && frames <= maxFrames
        if begun && playQuietPeriod(frames: frames, left: left, right: right) {
            sounded = true
        } else {
            left.update(repeating: 0, count: frames)
            right.update(repeating: 0, count: frames)
            var done = 0
            while done < frames {
                let chunk = min(maxFrames, frames - done)
                mixer.outputOffset = done
                if processChunk(frames: chunk, left: left + done, right: right + done, begun: begun && done == 0) { sounded = true }
                // No Optional.map here: its generic closure would instantiate metadata on first use.
                var chunkLeft = UnsafePointer(silentInput.pointer), chunkRight = UnsafePointer(silentInput.pointer)
                if let inputLeft { chunkLeft = inputLeft + done }
                if let inputRight { chunkRight = inputRight + done }
                if mixer.processInput(frames: chunk, inputLeft: chunkLeft, inputRight: chunkRight, left: left + done, right: right + done) {
                    sounded = true
                }
                masterInserts?.process(left: left + done, right: right + done, frames: chunk)
                done += chunk
            }
        }
        // A period nothing rendered into holds the zeros written above: nothing to scale, limit,
        // count or clean (most periods at rest, between the beats).
        periodWasSilent = !sounded
        if sounded {
            master.process(left: left, right: right, frames: frames)
            if outputCount > 0 { mixer.sanitizeOutputs(frames: frames, counters: counters) }
        } else {
            master.processSilence(left: left, right: right, frames: frames)
        }
        if closePluginPeriods(frames: frames) { controlWork = true }
        if outputCount > 0 { mixer.endOutputs() }
        if !keepsMIDI { firing.discardMIDI(before: framePosition) }
        modulations?.publish()
        stateSnapshot.serve(slots, master: masterInserts)
        view?.serve(graph, performance: performance)
        firing.wakeListeners()
        if controlWork {
            controlWork = false
            handle.controlBell.ring()
        }
        counters.add(.periods)
        counters.add(.framesProcessed, frames)
    }

    /// Real-time safe. Every hosted plugin's guard closes the period: its time against its share
    /// of the period (`handle.pluginShare`; 0 offline, where time is no limit), its findings.
    /// True when a plugin was benched now (the control thread says so and renews it).
    private func closePluginPeriods(frames: Int) -> Bool {
        guard voiceInserts.count + instrumentVoices.count > 0 || masterInserts != nil else { return false }
        let share = handle.pluginSharePercent.load(ordering: .relaxed)
        let budget = share > 0 ? frames * 10_000_000 / sampleRate * share : 0
        var benched = false
        for index in 0..<voiceInserts.count {
            if voiceInserts[index].closePeriod(budgetNanoseconds: budget) { benched = true }
        }
        for index in 0..<instrumentVoices.count {
            if instrumentVoices[index].closePeriod(budgetNanoseconds: budget) { benched = true }
        }
        if masterInserts?.closePeriod(budgetNanoseconds: budget) == true { benched = true }
        return benched
    }

    /// Real-time safe. JACK moved on `frames` frames without running us (a cycle lost to an
    /// xrun): the timeline moves on too, so every later beat stays on JACK's frame grid. Pulses
    /// due in the gap are passed over (still counted as beats, and the Tambour pattern steps
    /// past them); messages due there play at the next period's start, counted late. Bounded:
    /// at most 60 pulses a second of gap, and the caller limits the gap.
    /// `soundingLate`: the pulses due in the gap are kept, to sound at the next period's first
    /// frame; those a voice fires on are counted in `latePulses` (a cycle PipeWire ran for no
    /// client at a period change: the listener hears them a moment late rather than never).
    public func skip(frames: Int, soundingLate: Bool = false) {
        guard frames > 0 else { return }
        reportApplied(ControlMessage(frame: framePosition, .framesSkipped(Int32(frames))))
        let end = framePosition + Int64(frames)
        let passed = hearts.skip(to: end, soundingLate: soundingLate)
        for _ in 0..<passed.firstPerformersBeats { _ = performance.beatPassed() }
        if passed.late > 0 { counters.add(.latePulses, passed.late) }
        // Note-offs due in the gap stay queued: they go out at the next period's start, so no
        // note hangs.
        framePosition = end
        counters.add(.framesSkipped, frames)
        pluginTimeline?.resync()
    }

    /// Real-time safe. An earlier `skip` was wrong (JACK's frame time had been read late): the
    /// timeline goes back by `frames`. What already played stays played (events and pulses are
    /// consumed once); everything still to come lands on JACK's frames again.
    public func rewind(frames: Int) {
        guard frames > 0 else { return }
        reportApplied(ControlMessage(frame: framePosition, .framesSkipped(-Int32(frames))))
        framePosition -= Int64(frames)
        counters.subtract(.framesSkipped, frames)
        pluginTimeline?.resync()
        counters.add(.framesRewound, frames)
    }

    /// Real-time safe. False when no voice rendered into the chunk (it holds what it held).
    /// `begun`: `beginChunk` already ran for it.
    @discardableResult
    func processChunk(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, begun: Bool = false) -> Bool {
        var sounded = false
        let start = framePosition
        let end = start + Int64(frames)
        if !begun { beginChunk(frames: frames) }
        var cursor = start
        // Bounded: each pass either ends the chunk or consumes one queued event, one pulse or one
        // early firing, all finite within a chunk (queue and firing capacity; at most 60 pulses a second).
        while true {
            let eventFrame = queue.earliestFrame.map { max($0, cursor) } ?? end
            let (pulseFrame, pulsePerformer) = hearts.nextPulse(from: cursor, before: end)
            let earlyFrame = firing.nextEarlyFrame.map { max($0, cursor) } ?? end
            let controlFrame = modulations.map { max($0.nextDue, cursor) } ?? end
            // min of five would allocate its variadic array
            let next = min(min(min(eventFrame, pulseFrame), min(earlyFrame, end)), controlFrame)
            if next > cursor {
                if let midiClock { midiClock.collect(hearts.clock(hearts.gridHeart), from: cursor, to: next) }
                if let pluginTimeline { pluginTimeline.check(hearts.clock(hearts.gridHeart), at: cursor) }
                if mixer.renderVoices(offset: Int(cursor - start), frames: Int(next - cursor), left: left, right: right) { sounded = true }
                cursor = next
            }
            if cursor == end { break }
            if earlyFrame == cursor, firing.fireEarly() {
                continue
            } else if eventFrame == cursor, let scheduled = queue.popEarliest() {
                apply(scheduled.event, at: cursor, performer: scheduled.performer)
            } else if controlFrame == cursor, let modulations {
                // After the events at this frame, before its pulses: a velocity set here plays on them.
                modulations.evaluateDue(at: cursor, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
            } else {
                firePulse(performer: pulsePerformer, at: cursor)
            }
        }
        if mixer.finishBlock(frames: frames, left: left, right: right) { sounded = true }
        endChunk(at: end)
        return sounded
    }

    /// Real-time safe. A chunk of `frames` from `framePosition` begins: the rings drained into
    /// the queue, the hearts' levels faded, the latent voices' early firings planned. Its end.
    @discardableResult
    func beginChunk(frames: Int) -> Int64 {
        let start = framePosition
        let end = start + Int64(frames)
        blockStart = start
        if let pluginTimeline { pluginTimeline.beginBlock(hearts.clock(hearts.gridHeart), at: start) }
        drainSources(periodStart: start, periodEnd: end)
        hearts.fade(frames: frames)
        if firing.planEarly(hearts: hearts, start: start, end: end) { controlWork = true }
        return end
    }

    /// Real-time safe. The chunk rendered: the clocks and the timeline move on to `end`.
    func endChunk(at end: Int64) {
        hearts.advance(to: end)
        framePosition = end
        for number in 0..<clipSlots.count {
            if let clipVoice = slots[clipSlots[number]].clipVoice { clipVoice.reclaim(retire: retire) }
        }
    }

    /// Real-time safe. Reads only what each ring held when the drain began.
    private func drainSources(periodStart: Int64, periodEnd: Int64) {
        for index in 0..<sources.count {
            let source = sources[index]
            var remaining = source.available()
            while remaining > 0, let message = source.pop() {
                remaining -= 1
                var frame = message.frame
                if frame == ControlMessage.immediate {
                    frame = periodStart
                } else if frame < periodStart {
                    counters.add(.lateMessages)
                    frame = periodStart
                }
                schedule(message.event, at: frame, performer: message.performer, periodEnd: periodEnd)
            }
        }
    }

    /// Real-time safe. `periodEnd`: events before it are due now and may use the reserve.
    func schedule(_ event: ControlMessage.Event, at frame: Int64, performer: UInt8 = 0, periodEnd: Int64) {
        if !queue.insert(frame: frame, event, performer: performer, dueBefore: periodEnd) {
            counters.add(.queueOverflows)
        }
    }

    /// Real-time safe. The next pulse of heart `performer`: on a beat's first pulse, while
    /// playing, the first performer's recorded pattern plays its step (skipped beats silent);
    /// then the heart's voices that fire on it.
    private func firePulse(performer: Int, at frame: Int64) {
        let pulse = hearts.takePulse(performer)
        if pulse.pulse == 0 {
            hearts.beatPassed(performer, beat: pulse.beat, at: frame, firing: firing)
            if performer == 0, let voice = performance.beatPassed() { firing.fireIfPlaying(voice, velocity: 1, at: frame) }
        }
        firing.fireHeartVoices(performer: performer, beat: pulse.beat, pulse: pulse.pulse, velocity: 1,
                               framesPerBeat: pulse.framesPerBeat, fromClock: true, at: frame)
    }
}
