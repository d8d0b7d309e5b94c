import Atomics
import CJack
import Control
import Foundation
import Voices

/// Everything the process callback touches, built and sized before activation.
///
/// Each period it drains the control rings, places every message at its absolute frame in the
/// event queue, and renders the period in sub-blocks split exactly at event and pulse frames,
/// so an event due at frame F sounds at frame F. The same engine runs under JACK and offline.
// @unchecked: after activation its state is the process thread's alone; other threads reach it
// only through the rings and the atomics (`publishedPeriodStart`, `publishedTempo`, counters).
public final class RealtimeEngine: @unchecked Sendable {
    public let sampleRate: Int
    /// The largest block rendered at once; longer periods are processed in chunks of it.
    public let maxFrames: Int
    public let counters = EngineCounters()
    /// Voice names, by index: what control messages and fired reports refer to.
    public let voiceNames: [String]

    let slots: ContiguousArray<VoiceSlot>
    /// The voices' buses, their gains and the active set.
    private var mixer: Mixer
    private var sources: ContiguousArray<SPSCRing<ControlMessage>.Consumer> = []
    private let firedReports: SPSCRing<FiredVoice>.Producer?
    /// Every applied control message with its frame (`run --record-session`), when set.
    private var appliedReports: SPSCRing<ControlMessage>.Producer?
    /// Heartbeats, region hits and mode changes for a live picture (`observe(into:)`), when set.
    private var observations: SPSCRing<EngineObservation>.Producer?
    /// The settings a live picture asked to see (`makeView`), when set.
    private var view: EngineView?
    private var queue: EventQueue
    /// Each performer's heart (one when the preset names none): the process thread's.
    private var hearts: ContiguousArray<PerformerHeart>
    /// How many performers (`configurePerformers`).
    public private(set) var performerCount = 1
    /// Hearts: the performers', and the ensemble's after them when a voice follows it.
    private var heartCount = 1
    /// The ensemble heart's rule (nil: no ensemble heart).
    public private(set) var ensemble: EnsembleTempo?
    /// Scratch for the ensemble's tempo (the performers' tempi, sorted for the median).
    private let tempi: FixedBuffer<Double>
    /// Slots of `together` voices.
    private var togetherSlots: ContiguousArray<Int> = []
    /// The beat grid shared with other engines (`grid_out`, `grid_in`).
    let grid = SharedGrid()
    /// The heart whose beats are the shared grid: the ensemble's when a voice follows it, else
    /// the first performer's. `--timebase` publishes its tempo; `--follow-transport` drives it.
    public private(set) var gridHeart = 0
    /// The grid heart's clock (the timebase reads it on the process thread).
    var gridClock: HeartbeatClock { hearts[gridHeart].clock }
    /// Any thread: grid beats received on `grid_in`, and the frame of the last grid beat (−1: none).
    public var gridBeatsReceived: Int { grid.received.load(ordering: .relaxed) }
    public var lastGridBeatFrame: Int64 { grid.lastBeatFrame.load(ordering: .relaxed) }
    /// The first performer's heartbeat clock (tests read it while the engine is stopped).
    public var clock: HeartbeatClock { hearts[0].clock }
    /// Performer `index`'s heartbeat clock (engine stopped).
    public func clock(of index: Int) -> HeartbeatClock { hearts[index].clock }
    /// The tempi, for other threads: the bits of each performer's last BPM applied, 0 until one is.
    private var publishedBPMs: ContiguousArray<ManagedAtomic<UInt64>> = [ManagedAtomic(0)]
    /// Any thread: the tempo the first performer's heart plays at, nil until it has one.
    public var publishedTempo: Double? { publishedTempo(of: 0) }
    /// Any thread: performer `index`'s tempo, nil until it has one.
    public func publishedTempo(of index: Int) -> Double? {
        let bits = publishedBPMs[index].load(ordering: .relaxed)
        return bits == 0 ? nil : Double(bitPattern: bits)
    }
    /// What notes and controllers on `midi_in` play.
    private let midiInput: MIDIInputMap
    /// Region names, by index (OSC `/region/<name>`).
    public internal(set) var regionNames: [String] = []
    /// Regions, the mode and the recorded pattern.
    private var performance: TambourPerformance
    /// Silence, for input voices when the engine has no audio input (offline without --input).
    private let silentInput: FixedBuffer<Float>

    /// Absolute engine frame of the next frame to render (frames since the engine started).
    public private(set) var framePosition: Int64 = 0
    /// `framePosition` at the start of the current period, for other threads (`JackFrameClock`).
    public let publishedPeriodStart = ManagedAtomic<Int64>(0)
    /// Seconds a dropout's fade (and the return) takes (preset `dropout.fade_seconds`). Set
    /// before activation.
    public var heartFadeSeconds: Float = 1

    /// `run --follow-transport`: the grid heart's tempo comes from the JACK transport, its beats
    /// from `grid_in` once a grid beat has arrived; tempo and beat messages for it are counted
    /// and ignored (the performers' own hearts still follow their own). Set before activation.
    public var tempoFollowsTransport = false {
        didSet { grid.follows = tempoFollowsTransport }
    }
    /// `run --timebase`: each beat of the grid heart goes out on `grid_out`. Set before activation.
    public var sendsGrid: Bool {
        get { grid.sends }
        set { grid.sends = newValue }
    }
    /// Voice settings copied for a session save (see `voiceStates`).
    private let stateSnapshot: VoiceStateSnapshot
    /// Counts changes a session save would keep (voice settings); a session manager's dirty flag.
    public let settingChanges = ManagedAtomic<Int>(0)
    /// The master gain, safety limiter and clip count, last in every period.
    private var master: MasterStage
    /// LV2 effects on the whole mix, before the master stage. Set before activation.
    var masterInserts: InsertChain? {
        didSet { configurePlugins() }
    }
    /// Absolute frame of the block being processed: insert control changes count from it.
    private var blockStart: Int64 = 0
    /// Heart-driven voices with latent paths fire early (built with the master chain, `configurePlugins`).
    private var compensation: LatencyCompensation
    /// The largest path latency in frames, for other threads (status, JACK's latency callback).
    public let publishedLatency = ManagedAtomic<Int>(0)
    /// Notes for `midi_out`: one per fired voice, and its note-off.
    let midiOut: MIDIOutQueue
    /// Each voice's own MIDI port's notes (`midi_out: voices`), and per slot its queue's index or −1.
    private var voiceMIDIOut: ContiguousArray<MIDIOutQueue> = []
    private var voiceMIDIPort: ContiguousArray<Int32> = []
    public static let eventQueueCapacity = 4096
    /// Queue slots kept for events due in the current period (immediate messages and MIDI):
    /// future events may fill only the rest.
    public static let eventQueueReserve = 1024
    /// Objects a clip swap no longer needs, on their way to a control thread to be released
    /// there (`ClipSwapper` drains it).
    public let retiredClips = SPSCRing<RetainedObject>(minimumCapacity: 256)
    private let retiredProducer: SPSCRing<RetainedObject>.Producer

    /// Control thread. `firedReports`, when given, receives a report for every fired voice.
    init(sampleRate: Int, maxFrames: Int, slots: [VoiceSlot], noteVoices: [Int: Int], regionTargets: [RegionTarget],
         firedReports: SPSCRing<FiredVoice>.Producer?) {
        precondition(maxFrames > 0)
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        self.slots = ContiguousArray(slots)
        mixer = Mixer(slots: ContiguousArray(slots), sampleRate: sampleRate, maxFrames: maxFrames)
        voiceNames = slots.map(\.name)
        stateSnapshot = VoiceStateSnapshot(count: slots.count)
        midiOut = MIDIOutQueue(dropped: counters.midiNotesDropped)
        master = MasterStage(settings: .init(), sampleRate: sampleRate, clippedSamples: counters.clippedSamples)
        self.firedReports = firedReports
        queue = EventQueue(capacity: Self.eventQueueCapacity, reserve: Self.eventQueueReserve)
        retiredProducer = retiredClips.producer
        hearts = [PerformerHeart(sampleRate: sampleRate)]
        tempi = FixedBuffer(capacity: 256, repeating: 0)
        midiInput = MIDIInputMap(noteVoices: noteVoices)
        performance = TambourPerformance(targets: regionTargets)
        silentInput = FixedBuffer(capacity: maxFrames, repeating: 0)
        compensation = LatencyCompensation(slots: ContiguousArray(slots), masterHasInserts: false)
        for slot in slots { slot.voice.prepare(sampleRate: sampleRate, maxFrames: maxFrames) }
        configurePlugins()
    }

    /// Control thread, before activation: every control message the engine applies is also
    /// pushed, with the frame it took effect at, into `ring` (a session recording).
    public func recordApplied(into ring: SPSCRing<ControlMessage>) {
        appliedReports = ring.producer
    }

    /// Control thread, before activation: `count` performers, each with a heart of their own
    /// (voices follow the one their slot names), and the ensemble's heart after them when
    /// `ensemble` says how it takes its tempo.
    public func configurePerformers(count: Int, ensemble: EnsembleTempo? = nil) {
        precondition((1...Int(UInt8.max) - 1).contains(count))
        performerCount = count
        self.ensemble = ensemble
        heartCount = count + (ensemble == nil ? 0 : 1)
        gridHeart = ensemble == nil ? 0 : count
        hearts = ContiguousArray((0..<heartCount).map { _ in PerformerHeart(sampleRate: sampleRate) })
        publishedBPMs = ContiguousArray((0..<heartCount).map { _ in ManagedAtomic<UInt64>(0) })
        togetherSlots = ContiguousArray(slots.indices.filter { slots[$0].together != nil })
        configurePlugins()
    }

    /// Control thread, before activation: each voice is also mixed (after its gain, pan and
    /// inserts, before the master's inserts and stage) into output `voiceOutputs[i]` of `count`
    /// (−1: the master only): stems, and per-voice ports.
    public func configureOutputs(_ voiceOutputs: [Int32], count: Int) {
        mixer.configureOutputs(voiceOutputs, count: count)
        outputCount = count
    }

    /// Control thread, before activation: the buses and voice MIDI ports `layout` names (a live
    /// run then gives the JACK client the same layout).
    public func configure(outputs layout: OutputLayout) {
        precondition(layout.voiceBus.count == slots.count)
        configureOutputs(layout.voiceBus, count: layout.buses.count)
        configureVoiceMIDI(layout.voiceMIDIPort)
    }

    /// How many outputs besides the master (`configureOutputs`).
    public private(set) var outputCount = 0

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

    /// Control thread, before activation: voice `i` also sends its notes to a MIDI port of its
    /// own, number `voicePorts[i]` (−1: `midi_out` only), flushed with `flushVoiceMIDI`.
    public func configureVoiceMIDI(_ voicePorts: [Int32]) {
        precondition(voicePorts.count == slots.count)
        let count = Int(voicePorts.max() ?? -1) + 1
        voiceMIDIOut = ContiguousArray((0..<count).map { _ in MIDIOutQueue(capacity: 256, dropped: counters.midiNotesDropped) })
        voiceMIDIPort = ContiguousArray(voicePorts)
    }

    /// How many voices have a MIDI port of their own.
    public var voiceMIDIPortCount: Int { voiceMIDIOut.count }

    /// Real-time safe. After `process`: MIDI port `number`'s notes due in the period just
    /// rendered, written into `buffer` (a JACK MIDI port buffer, cleared first).
    public func flushVoiceMIDI(_ number: Int, into buffer: UnsafeMutableRawPointer, frames: Int) {
        voiceMIDIOut[number].flush(into: buffer, start: publishedPeriodStart.load(ordering: .relaxed), frames: frames)
    }

    /// Control thread, before activation: heartbeats, region hits and mode changes also go,
    /// with their frames, into `ring` (for a live picture; full: dropped and counted).
    public func observe(into ring: SPSCRing<EngineObservation>) {
        observations = ring.producer
    }

    /// Control thread, before activation: the view a live picture reads the settings through —
    /// the voices', the mode and pattern, and every insert's bypass and input controls (voices
    /// in order, then the master).
    public func makeView() -> EngineView {
        var controls: [EngineView.InsertControl] = []
        for index in Array(0..<slots.count) + [-1] {
            guard let chain = insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)) else { continue }
            let place = index < 0 ? "master" : "voice/\(voiceNames[index])"
            for (stage, insert) in chain.stages.enumerated() {
                let plugin = insert.published.instances[0]
                controls.append(.init(address: InsertAddress(chain: Int32(index), stage: UInt16(stage), port: InsertAddress.bypass),
                                      place: place, number: stage + 1, plugin: plugin.name, symbol: "bypass", name: "Bypass",
                                      minimum: 0, maximum: 1))
                for port in plugin.ports where port.kind == .control && port.isInput {
                    controls.append(.init(address: InsertAddress(chain: Int32(index), stage: UInt16(stage), port: port.index),
                                          place: place, number: stage + 1, plugin: plugin.name, symbol: port.symbol, name: port.name,
                                          minimum: port.minimum.isNaN ? 0 : port.minimum, maximum: port.maximum.isNaN ? 1 : port.maximum))
                }
            }
        }
        let made = EngineView(voiceCount: slots.count, controls: controls)
        view = made
        return made
    }

    /// Real-time safe. Copies the settings into the view when it asked.
    private func serveView() {
        guard let view, view.wanted else { return }
        for index in 0..<slots.count {
            let slot = slots[index]
            view.set(voice: index, VoiceState(enabled: slot.enabled, gain: slot.gain, pan: slot.pan, rate: slot.rate))
        }
        for index in 0..<view.controls.count {
            let address = view.controls[index].address
            guard let chain = insertChain(address) else { continue }
            let stage = chain.stages[Int(address.stage)]
            view.set(control: index, address.port == InsertAddress.bypass
                     ? (stage.bypass ? 1 : 0) : stage.current.instances[0].controlValues[Int(address.port)])
        }
        view.set(mode: performance.mode,
                 patternCount: performance.copyPattern(to: view.patternStorage, capacity: TambourPerformance.patternCapacity))
        view.publish()
    }

    /// Real-time safe. Tells the live picture; a full ring drops it (counted).
    private func observed(_ kind: EngineObservation.Kind, _ index: Int32, at frame: Int64, value: Float) {
        if let observations, !observations.push(EngineObservation(kind: kind, index: index, frame: frame, value: value)) {
            counters.firedReportsDropped.wrappingIncrement(ordering: .relaxed)
        }
    }

    /// Control thread: every voice's settings now. While the process thread runs (`live`), it
    /// takes the copy; otherwise (stopped, or the server gone) they are read here.
    public func voiceStates(live: Bool) -> [String: VoiceState] {
        if !(live && stateSnapshot.request(timeout: 1)) { stateSnapshot.copy(slots, master: masterInserts) }
        return Dictionary(uniqueKeysWithValues: zip(voiceNames, stateSnapshot.values))
    }

    /// Control thread, before activation: a ring the process thread drains every period.
    public func addSource(_ ring: SPSCRing<ControlMessage>) {
        sources.append(ring.consumer)
    }

    /// Control thread: the track player at voice `index`, if that voice is one.
    public func trackPlayer(at index: Int) -> TrackPlayerVoice? {
        index < slots.count ? slots[index].voice as? TrackPlayerVoice : nil
    }

    /// Tests and diagnostics: the slot at `index`.
    func slotForTesting(_ index: Int) -> VoiceSlot? { index < slots.count ? slots[index] : nil }

    /// Control thread, before activation: the master gain (dB) and, with `ceilingDB`, the limiter.
    public func configureMaster(gainDB: Double, ceilingDB: Double?, releaseMS: Double = 50) {
        let settings = MasterStage.Settings(gain: Float(pow(10, gainDB / 20)), ceiling: ceilingDB.map { Float(pow(10, $0 / 20)) },
                                            releaseSeconds: Float(releaseMS / 1000))
        master = MasterStage(settings: settings, sampleRate: sampleRate, clippedSamples: counters.clippedSamples)
    }

    /// Control thread, before activation (and again when the master's inserts are set): where
    /// every insert chain hands replaced instances back, and which voices can have latency to
    /// compensate.
    func configurePlugins() {
        for index in -1..<slots.count {
            insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0))?.retire = { [unowned self] in self.retire($0) }
        }
        compensation = LatencyCompensation(slots: slots, masterHasInserts: masterInserts != nil)
        compensation.plan(clock: hearts[0].clock, slots: slots, master: masterInserts, sampleRate: sampleRate, start: 0, end: 0)
        publishedLatency.store(compensation.largest, ordering: .relaxed)
    }

    /// Control thread, before activation: the skipped-beat region and the voices that announce modes.
    public func configurePerformance(skipRegion: Int32?, modeVoices: [PerformanceMode: Int32]) {
        performance.configure(skipRegion: skipRegion, modeVoices: modeVoices)
    }

    /// Control thread, before activation: MIDI note `note` hits region `region`.
    public func mapNoteToRegion(_ note: Int, region: Int32) {
        midiInput.mapNote(note, region: region)
    }

    /// Control thread, before activation: MIDI controller `controller` sets `parameter` of voice `voice`.
    public func mapControlChange(_ controller: Int, voice: Int, parameter: MIDIControl) {
        guard voice < voiceNames.count else { return }
        midiInput.mapController(controller, voice: Int32(voice), parameter: parameter)
    }

    /// Control thread, before activation: MIDI controller `controller` moves an insert's control.
    public func mapControlChange(_ controller: Int, to route: InsertRoute) {
        midiInput.mapController(controller, to: route)
    }

    /// Control thread, before activation: index of the voice named `name`.
    public func voiceIndex(named name: String) -> Int? { voiceNames.firstIndex(of: name) }

    /// Control thread, before activation. Runs one silent period so that every lazy global and
    /// generic metadata the process path needs exists before the process thread first runs it.
    public func warmUp() {
        let scratch = FixedBuffer<Float>(capacity: 2 * maxFrames, repeating: 0)
        let left = scratch.pointer, right = scratch.pointer + maxFrames
        // The shared grid's paths, on a grid of their own.
        let scratchGrid = SharedGrid()
        scratchGrid.sends = true
        let (status, lsb, msb) = SharedGrid.message(beat: 1)
        scratchGrid.send(beat: SharedGrid.beat(status: status, lsb: lsb, msb: msb) ?? 0, at: 0)
        _ = scratchGrid.receive(position: 0)
        _ = scratchGrid.take(at: 0)
        for slot in slots {
            slot.voice.render(left: left, right: right, frames: 1)
            slot.blockVoice?.renderBlock(left: left, right: right, frames: 1)
        }
        // A zero-frame chunk walks the drain and scheduling path: messages already waiting move
        // into the event queue at their frames, and nothing is rendered or lost.
        processChunk(frames: 0, left: left, right: right)
        // The hosted plugins' paths: a no-op change on each chain (its first insert's bypass, set
        // to what it is) and a one-frame block through every chain and instrument.
        for index in -1..<slots.count {
            guard let chain = insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0)), !chain.stages.isEmpty else { continue }
            chain.change(stage: 0, port: InsertChain.bypassPort, value: chain.stages[0].bypass ? 1 : 0, atOffset: 0)
        }
        performance.warmUp()
        // The fired-voice reports' push (the events log, the live page), before any voice fires.
        if firedReports != nil {
            let scratchFired = SPSCRing<FiredVoice>(minimumCapacity: 2)
            _ = scratchFired.producer.push(FiredVoice(frame: 0, voice: 0, velocity: 0))
        }
        // The retired ring's push, which a live plugin-state load hands instances back through.
        let scratchRing = SPSCRing<RetainedObject>(minimumCapacity: 2)
        if scratchRing.producer.push(RetainedObject(retaining: scratchRing)) { scratchRing.consumer.pop()?.release() }
        _ = VoiceSlot.gainRange.contains(1) && VoiceSlot.panRange.contains(0)
        left.update(repeating: 0, count: 2 * maxFrames)
        mixer.finishBlock(frames: 1, left: left, right: right)
        masterInserts?.process(left: left, right: right, frames: 1)
        _ = counters.snapshot()
        // The live picture's copy and report paths.
        if let view {
            view.request()
            serveView()
            _ = view.take()
        }
        if observations != nil {
            let scratchObservations = SPSCRing<EngineObservation>(minimumCapacity: 2)
            _ = scratchObservations.producer.push(EngineObservation(kind: .beat, index: 0, frame: 0, value: 1))
        }
    }

    // MARK: - The process path

    /// Real-time safe. Before `process`: a MIDI channel message on `midi_in` at `offset` frames
    /// into the coming period, scheduled at its frame if the map plays it. MIDI is always due in
    /// this period, so it may use the queue's reserve. (`ProcessHost` decodes JACK's buffer.)
    public func receiveMIDI(status: UInt8, key: UInt8, value: UInt8, offset: Int) {
        guard let event = midiInput.event(status: status, key: key, value: value) else { return }
        schedule(event, at: framePosition + Int64(offset), periodEnd: .max)
    }

    /// Real-time safe. Renders `frames` frames into `left` and `right` (overwriting them), with
    /// `inputLeft`/`inputRight` the audio input that input voices process.
    public func process(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                        inputLeft: UnsafePointer<Float>? = nil, inputRight: UnsafePointer<Float>? = nil,
                        midiOut midiOutBuffer: UnsafeMutableRawPointer? = nil) {
        pj_rt_enter()
        defer { pj_rt_exit() }
        let periodStart = framePosition
        publishedPeriodStart.store(framePosition, ordering: .relaxed)
        grid.outCount = 0
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        mixer.startOutputs(frames: frames)
        var done = 0
        while done < frames {
            let chunk = min(maxFrames, frames - done)
            mixer.outputOffset = done
            processChunk(frames: chunk, left: left + done, right: right + done)
            // No Optional.map here: its generic closure would instantiate metadata on first use.
            var chunkLeft = UnsafePointer(silentInput.pointer), chunkRight = UnsafePointer(silentInput.pointer)
            if let inputLeft { chunkLeft = inputLeft + done }
            if let inputRight { chunkRight = inputRight + done }
            mixer.processInput(frames: chunk, inputLeft: chunkLeft, inputRight: chunkRight, left: left + done, right: right + done)
            masterInserts?.process(left: left + done, right: right + done, frames: chunk)
            done += chunk
        }
        master.process(left: left, right: right, frames: frames)
        mixer.endOutputs()
        if let midiOutBuffer {
            midiOut.flush(into: midiOutBuffer, start: periodStart, frames: frames)
        } else {
            // Offline: no ports to write to.
            midiOut.discard(before: framePosition)
            for index in 0..<voiceMIDIOut.count { voiceMIDIOut[index].discard(before: framePosition) }
        }
        stateSnapshot.serve(slots, master: masterInserts)
        serveView()
        counters.periods.wrappingIncrement(ordering: .relaxed)
        counters.framesProcessed.wrappingIncrement(by: frames, ordering: .relaxed)
    }

    /// Real-time safe. JACK moved on `frames` frames without running us (a cycle lost to an
    /// xrun): the timeline moves on too, so every later beat stays on JACK's frame grid. Pulses
    /// due in the gap are passed over (still counted as beats, and the Tambour pattern steps
    /// past them); messages due there play at the next period's start, counted late. Bounded:
    /// at most 60 pulses a second of gap, and the caller limits the gap.
    public func skip(frames: Int) {
        guard frames > 0 else { return }
        let end = framePosition + Int64(frames)
        for performer in 0..<heartCount {
            let heart = hearts[performer]
            while let pulseFrame = heart.clock.nextPulseFrame, pulseFrame < end {
                if heart.clock.nextPulsePosition.pulse == 0 { _ = beatPassed(performer: performer, beat: 0, at: nil) }
                heart.clock.consumePulse()
            }
            heart.clock.advance(to: end)
        }
        // Note-offs due in the gap stay queued: they go out at the next period's start, so no
        // note hangs.
        framePosition = end
        counters.framesSkipped.wrappingIncrement(by: frames, ordering: .relaxed)
    }

    /// Real-time safe. An earlier `skip` was wrong (JACK's frame time had been read late): the
    /// timeline goes back by `frames`. What already played stays played (events and pulses are
    /// consumed once); everything still to come lands on JACK's frames again.
    public func rewind(frames: Int) {
        guard frames > 0 else { return }
        framePosition -= Int64(frames)
        counters.framesSkipped.wrappingDecrement(by: frames, ordering: .relaxed)
        counters.framesRewound.wrappingIncrement(by: frames, ordering: .relaxed)
    }

    /// Real-time safe.
    private func processChunk(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        let start = framePosition
        let end = start + Int64(frames)
        blockStart = start
        drainSources(periodStart: start, periodEnd: end)
        fadeHearts(frames: frames)
        compensation.plan(clock: hearts[0].clock, slots: slots, master: masterInserts, sampleRate: sampleRate, start: start, end: end)
        if compensation.largest != publishedLatency.load(ordering: .relaxed) {
            publishedLatency.store(compensation.largest, ordering: .relaxed)
        }
        var cursor = start
        // Bounded: each pass either ends the chunk or consumes one queued event, one pulse or one
        // early firing, all finite within a chunk (queue and firing capacity; at most 60 pulses a second).
        while true {
            let eventFrame = queue.earliestFrame.map { max($0, cursor) } ?? end
            // The earliest pulse of any performer's heart (the first performer's on a tie).
            var pulseFrame = end, pulsePerformer = 0
            for performer in 0..<heartCount {
                if let frame = hearts[performer].clock.nextPulseFrame, max(frame, cursor) < pulseFrame {
                    pulseFrame = max(frame, cursor)
                    pulsePerformer = performer
                }
            }
            let earlyFrame = compensation.nextFrame.map { max($0, cursor) } ?? end
            let next = min(min(eventFrame, pulseFrame), min(earlyFrame, end))  // min of four would allocate its variadic array
            if next > cursor {
                mixer.renderVoices(offset: Int(cursor - start), frames: Int(next - cursor), left: left, right: right)
                cursor = next
            }
            if cursor == end { break }
            if earlyFrame == cursor, let firing = compensation.pop() {
                fireEarly(firing)
            } else if eventFrame == cursor, let scheduled = queue.popEarliest() {
                apply(scheduled.event, at: cursor, performer: scheduled.performer)
            } else {
                firePulse(performer: pulsePerformer, at: cursor)
            }
        }
        mixer.finishBlock(frames: frames, left: left, right: right)
        for performer in 0..<heartCount { hearts[performer].clock.advance(to: end) }
        framePosition = end
        for index in 0..<slots.count {
            if let clipVoice = slots[index].clipVoice { clipVoice.reclaim(retire: retire) }
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
                    counters.lateMessages.wrappingIncrement(ordering: .relaxed)
                    frame = periodStart
                }
                schedule(message.event, at: frame, performer: message.performer, periodEnd: periodEnd)
            }
        }
    }

    /// Real-time safe. `periodEnd`: events before it are due now and may use the reserve.
    private func schedule(_ event: ControlMessage.Event, at frame: Int64, performer: UInt8 = 0, periodEnd: Int64) {
        if !queue.insert(frame: frame, event, performer: performer, dueBefore: periodEnd) {
            counters.queueOverflows.wrappingIncrement(ordering: .relaxed)
        }
    }

    /// Real-time safe.
    private func apply(_ event: ControlMessage.Event, at frame: Int64, performer: UInt8 = 0) {
        counters.messagesApplied.wrappingIncrement(ordering: .relaxed)
        if let appliedReports, !appliedReports.push(ControlMessage(frame: frame, performer: performer, event)) {
            counters.recordingOverruns.wrappingIncrement(ordering: .relaxed)
        }
        switch event {
        case .tempo(let bpm):
            guard Int(performer) < performerCount else { return invalid() }
            if tempoFollowsTransport && Int(performer) == gridHeart {
                counters.ignoredTempos.wrappingIncrement(ordering: .relaxed)
                return
            }
            setTempo(bpm, at: frame, performer: Int(performer))
        case .heartbeat(let strength):
            if performer == SharedGrid.performer {
                // A beat from grid_in: the grid heart's, at the position the timebase gave it.
                guard let position = grid.take(at: frame) else { return }
                hearts[gridHeart].explicitBeats = position
                return explicitBeat(gridHeart, strength: 1, at: frame)
            }
            guard strength.isFinite, Int(performer) < performerCount else { return invalid() }
            if tempoFollowsTransport && Int(performer) == gridHeart {
                counters.ignoredTempos.wrappingIncrement(ordering: .relaxed)
                return
            }
            explicitBeat(Int(performer), strength: strength, at: frame)
        case .voiceTrigger(let voice, let velocity):
            guard let slot = slot(voice), velocity.isFinite else { return invalid() }
            if slot.enabled && !slot.silenced { fire(slot, index: voice, velocity: velocity, at: frame) }
        case .voiceParameter(let voice, let parameter):
            guard let slot = slot(voice) else { return invalid() }
            settingChanges.wrappingIncrement(ordering: .relaxed)
            switch parameter {
            case .enable(let on): slot.enabled = on
            case .gain(let gain):
                guard gain.isFinite, VoiceSlot.gainRange.contains(gain) else { return invalid() }
                slot.gain = gain
            case .pan(let pan):
                guard pan.isFinite, VoiceSlot.panRange.contains(pan) else { return invalid() }
                slot.pan = pan
            case .rate(let rate):
                guard rate.isValid else { return invalid() }
                slot.rate = rate
            }
        case .regionHit(let region, let velocity):
            guard velocity.isFinite else { return invalid() }
            if region >= 0 && Int(region) < regionNames.count { observed(.regionHit, region, at: frame, value: velocity) }
            switch performance.hit(region: region) {
            case .invalid: invalid()
            case .silent: break
            case .enter(let newMode): enter(newMode, at: frame)
            case .play(let voice):
                if let slot = slot(voice), slot.enabled, !slot.silenced { fire(slot, index: voice, velocity: velocity, at: frame) }
            }
        case .modeChange(let newMode):
            enter(newMode, at: frame)
        case .pose, .bandPower:
            break  // the region and mood models consume these
        case .heartPresence(let present):
            guard Int(performer) < performerCount else { return invalid() }
            hearts[Int(performer)].levelTarget = present ? 1 : 0
        case .insertControl(let address, let value):
            guard let chain = insertChain(address), Int(address.stage) < chain.stages.count, value.isFinite else { return invalid() }
            settingChanges.wrappingIncrement(ordering: .relaxed)
            chain.change(stage: Int(address.stage), port: address.port, value: value, atOffset: Int(frame - blockStart))
        case .swapInsert(let address, let object):
            guard let chain = insertChain(address), Int(address.stage) < chain.stages.count,
                  object.unmanaged.takeUnretainedValue() is InsertChain.PluginSet else {
                retire(object.unmanaged)
                return invalid()
            }
            settingChanges.wrappingIncrement(ordering: .relaxed)
            // The message's strong reference moves into the stage at its frame; the old set's goes back.
            chain.swap(stage: Int(address.stage), to: Unmanaged<InsertChain.PluginSet>.fromOpaque(object.unmanaged.toOpaque()),
                       atOffset: Int(frame - blockStart))
        case .swapClip(let voice, let clip):
            let offered = clip.unmanaged
            guard let clipVoice = slot(voice)?.clipVoice else {
                retire(offered)
                return invalid()
            }
            if clipVoice.swapClip(offered, retire: retire) {
                mixer.wake(Int(voice))
            } else {
                counters.swapsRefused.wrappingIncrement(ordering: .relaxed)
                retire(offered)
            }
        }
    }

    /// Real-time safe. An explicit beat of heart `index` (a `/pulse/beat` or a grid beat).
    private func explicitBeat(_ index: Int, strength: Float, at frame: Int64) {
        let heart = hearts[index]
        let beat = heart.explicitBeats
        heart.explicitBeats += 1
        if heart.lastExplicitBeatFrame >= 0, frame > heart.lastExplicitBeatFrame {
            heart.explicitBeatFrames = Double(frame - heart.lastExplicitBeatFrame)
        }
        heart.lastExplicitBeatFrame = frame
        counters.beats.wrappingIncrement(ordering: .relaxed)
        observed(.beat, Int32(index), at: frame, value: min(max(strength, 0), 1))
        heartBeat(index, beat: beat, at: frame)
        fireHeartVoices(performer: index, beat: beat, pulse: 0, velocity: min(max(strength, 0), 1),
                        framesPerBeat: heart.explicitBeatFrames, fromClock: false, at: frame)
    }

    /// Real-time safe. Before `process`: a grid beat (`grid_in`) at `offset` frames into the
    /// coming period, at beat `position` of the timebase's grid. The first one stops the grid
    /// heart's own clock: from then on it beats on the grid only.
    public func receiveGridBeat(position: Int64, offset: Int) {
        guard grid.follows else { return }
        if !grid.arrived {
            grid.arrived = true
            hearts[gridHeart].clock = HeartbeatClock(sampleRate: sampleRate)
        }
        guard grid.receive(position: position) else { return counters.queueOverflows.wrappingIncrement(ordering: .relaxed) }
        schedule(.heartbeat(strength: 1), at: framePosition + Int64(offset), performer: SharedGrid.performer, periodEnd: .max)
    }

    /// Real-time safe. Performer `performer`'s tempo; their tempo-following voices follow it.
    private func setTempo(_ bpm: Double, at frame: Int64, performer: Int = 0) {
        let heart = hearts[performer]
        if !heart.clock.setTempo(bpm: bpm, atFrame: frame) {
            counters.rejectedTempos.wrappingIncrement(ordering: .relaxed)
            return
        }
        publishedBPMs[performer].store(heart.clock.bpm.bitPattern, ordering: .relaxed)
        for index in 0..<slots.count where slots[index].performer == performer { slots[index].tempoVoice?.follow(bpm: bpm) }
        if let ensemble, performer < performerCount, !tempoFollowsTransport {
            for index in 0..<performerCount {
                tempi[index] = hearts[index].clock.isRunning ? hearts[index].clock.bpm : 0
            }
            let whole = performerCount
            if let tempo = ensemble.tempo(of: tempi.pointer, count: performerCount),
               tempo != hearts[whole].clock.bpm || !hearts[whole].clock.isRunning {
                setTempo(tempo, at: frame, performer: whole)
            }
        }
    }

    /// Real-time safe. Each heart's level one block on toward its target (a dropout's fade over
    /// `heartFadeSeconds`), and each heart-driven voice at its own performer's level.
    private func fadeHearts(frames: Int) {
        let step = Float(frames) / (Float(sampleRate) * heartFadeSeconds)
        var changed = false
        for performer in 0..<heartCount {
            let heart = hearts[performer]
            guard heart.level != heart.levelTarget else { continue }
            heart.level = heart.levelTarget > heart.level ? min(heart.levelTarget, heart.level + step) : max(heart.levelTarget, heart.level - step)
            changed = true
        }
        guard changed else { return }
        for index in 0..<slots.count where slots[index].performer >= 0 {
            slots[index].heartLevel = hearts[slots[index].performer].level
        }
    }

    /// Real-time safe. A beat of heart `performer` at `frame`: a `together` voice of that
    /// performer and another fires when the other's last beat is within its window and neither
    /// beat has fired it yet (at this, the second, beat's frame).
    private func heartBeat(_ performer: Int, beat: Int64, at frame: Int64) {
        hearts[performer].lastBeat = frame
        if performer == gridHeart { grid.send(beat: beat, at: frame) }
        for number in 0..<togetherSlots.count {
            let index = togetherSlots[number]
            let slot = slots[index]
            guard let pair = slot.together, pair.first == performer || pair.second == performer else { continue }
            let other = pair.first == performer ? pair.second : pair.first
            let otherFrame = hearts[other].lastBeat
            let (usedMine, usedOther) = pair.first == performer ? slot.togetherUsed : (slot.togetherUsed.second, slot.togetherUsed.first)
            guard otherFrame >= 0, frame - otherFrame <= pair.window, otherFrame > usedOther, frame > usedMine else { continue }
            slot.togetherUsed = pair.first == performer ? (frame, otherFrame) : (otherFrame, frame)
            if slot.enabled && !slot.silenced { fire(slot, index: Int32(index), velocity: slot.velocity, at: frame) }
        }
    }

    /// Real-time safe. Before `process`: the external transport's tempo, taking effect at the
    /// start of this period when it changed.
    public func followTransport(bpm: Double) {
        let heart = hearts[gridHeart]
        guard !grid.arrived, bpm != heart.clock.bpm || !heart.clock.isRunning else { return }
        setTempo(bpm, at: framePosition, performer: gridHeart)
    }

    /// Real-time safe. Sends an object a swap no longer needs back to the control thread. The
    /// ring holds 256; were it full, the object would leak rather than be released here.
    private func retire(_ object: Unmanaged<AnyObject>) {
        retiredProducer.push(RetainedObject(handingOver: object))
    }

    /// Real-time safe. Changes the performance mode and announces it with its voice.
    private func enter(_ newMode: PerformanceMode, at frame: Int64) {
        observed(.mode, Int32(newMode.rawValue), at: frame, value: 1)
        if let announce = performance.enter(newMode), let slot = slot(announce), !slot.silenced {
            fire(slot, index: announce, velocity: 1, at: frame)
        }
    }

    /// Real-time safe. The chain an insert address names.
    func insertChain(_ address: InsertAddress) -> InsertChain? {
        address.chain == InsertAddress.master ? masterInserts : slot(address.chain)?.inserts
    }

    @inline(__always)
    private func invalid() { counters.invalidMessages.wrappingIncrement(ordering: .relaxed) }

    @inline(__always)
    private func slot(_ index: Int32) -> VoiceSlot? {
        index >= 0 && Int(index) < slots.count ? slots[Int(index)] : nil
    }

    /// Real-time safe.
    private func firePulse(performer: Int, at frame: Int64) {
        let heart = hearts[performer]
        let position = heart.clock.nextPulsePosition
        heart.clock.consumePulse()
        // Playing: each beat plays the next step of the recorded pattern; skipped beats are silent.
        if position.pulse == 0, let voice = beatPassed(performer: performer, beat: position.beat, at: frame), let slot = slot(voice), slot.enabled,
           !slot.silenced {
            fire(slot, index: voice, velocity: 1, at: frame)
        }
        fireHeartVoices(performer: performer, beat: position.beat, pulse: position.pulse, velocity: 1,
                        framesPerBeat: 60 * Double(sampleRate) / heart.clock.bpm, fromClock: true, at: frame)
    }

    /// Real-time safe. Counts a beat of `performer`'s heart (heard at `frame`; nil: lost in a
    /// gap); on the first performer's, while playing, the voice of the recorded pattern's step for
    /// it (the pattern moves on, skipped beats included).
    private func beatPassed(performer: Int, beat: Int64, at frame: Int64?) -> Int32? {
        counters.beats.wrappingIncrement(ordering: .relaxed)
        if let frame {
            observed(.beat, Int32(performer), at: frame, value: 1)
            heartBeat(performer, beat: beat, at: frame)
        }
        return performer == 0 ? performance.beatPassed() : nil
    }

    /// Real-time safe. `fromClock`: the clock's pulse, which voices fired early (their latency
    /// compensated) have already played.
    private func fireHeartVoices(performer: Int, beat: Int64, pulse: Int, velocity: Float, framesPerBeat: Double, fromClock: Bool,
                                 at frame: Int64) {
        for index in 0..<slots.count where slots[index].performer == performer {
            // A compensated voice played this pulse early, unless the look-ahead could not see it.
            if fromClock && compensation.compensation(index) > 0 && !compensation.claim(index, beat: beat, pulse: pulse) { continue }
            fireHeartVoice(index, beat: beat, pulse: pulse, velocity: velocity, framesPerBeat: framesPerBeat, at: frame, beatFrame: frame)
        }
    }

    /// Real-time safe. A latent voice's pulse, `L` frames before the pulse's own frame.
    private func fireEarly(_ firing: LatencyCompensation.Firing) {
        fireHeartVoice(Int(firing.slot), beat: firing.beat, pulse: firing.pulse, velocity: 1, framesPerBeat: firing.framesPerBeat,
                       at: firing.frame, beatFrame: firing.beatFrame)
    }

    /// Real-time safe. Voice `index` on pulse `pulse` of beat `beat`, if its rate fires there;
    /// reported (fired report, MIDI out) at `beatFrame`, where it sounds.
    private func fireHeartVoice(_ index: Int, beat: Int64, pulse: Int, velocity: Float, framesPerBeat: Double, at frame: Int64,
                                beatFrame: Int64) {
        let slot = slots[index]
        guard slot.followsHeart && slot.enabled && !slot.silenced else { return }
        let noteVelocity = velocity * slot.velocity
        if let pulseVoice = slot.pulseVoice {
            let fires = pulseVoice.wantsEveryPulse
                ? beat % Int64(slot.rate.everyNthBeat) == 0 : slot.rate.fires(beat: beat, pulse: pulse)
            guard fires else { return }
            let step = pulseVoice.wantsEveryPulse
                ? framesPerBeat / Double(BeatRate.pulsesPerBeat) : framesPerBeat / Double(slot.rate.subdivision)
            if pulseVoice.pulse(beat: beat, pulse: pulse, stepFrames: step, velocity: noteVelocity) {
                report(slot, index: Int32(index), velocity: noteVelocity, at: beatFrame)
            }
        } else if slot.rate.fires(beat: beat, pulse: pulse) {
            slot.voice.trigger(atFrame: 0, velocity: noteVelocity)
            report(slot, index: Int32(index), velocity: noteVelocity, at: beatFrame)
        }
    }

    /// Real-time safe. Sub-blocks are split at event frames, so a note always starts at offset 0
    /// of the next render.
    private func fire(_ slot: VoiceSlot, index: Int32, velocity: Float, at frame: Int64) {
        slot.voice.trigger(atFrame: 0, velocity: velocity)
        report(slot, index: index, velocity: velocity, at: frame)
    }

    /// Real-time safe. Counts a fired note, chokes its group, and reports it out of the thread.
    private func report(_ slot: VoiceSlot, index: Int32, velocity: Float, at frame: Int64) {
        if slot.chokeGroup != 0 {
            for other in 0..<slots.count where other != Int(index) && slots[other].chokeGroup == slot.chokeGroup {
                slots[other].voice.choke()
            }
        }
        mixer.wake(Int(index))
        counters.voicesFired.wrappingIncrement(ordering: .relaxed)
        let note = slot.midiOut
        midiOut.noteOn(frame: frame, channel: note.channel, key: note.key, velocity: velocity, length: note.length)
        if !voiceMIDIPort.isEmpty, voiceMIDIPort[Int(index)] >= 0 {
            voiceMIDIOut[Int(voiceMIDIPort[Int(index)])].noteOn(frame: frame, channel: note.channel, key: note.key,
                                                                velocity: velocity, length: note.length)
        }
        if let firedReports, !firedReports.push(FiredVoice(frame: frame, voice: index, velocity: velocity)) {
            counters.firedReportsDropped.wrappingIncrement(ordering: .relaxed)
        }
    }
}
