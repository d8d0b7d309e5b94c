import Atomics
import Voices
import Realtime
import Plugins

/// Firing voices, and telling the world: each fired voice chokes its group, wakes in the mix,
/// sends its note to `midi_out` (and to its own MIDI port) and is reported out of the thread;
/// heart-driven voices with a latent path (hosted plugins) fire early by that latency so they
/// sound on the beat. The heartbeats, region hits and mode changes a live picture watches go
/// out here too. Owned by the engine by value; allocated before activation.
package struct VoiceFiring: ~Copyable {
    private let slots: ContiguousArray<VoiceSlot>
    private let active: ActiveVoices
    private let counters: EngineCounters
    private let sampleRate: Int
    /// Notes for `midi_out`: one per fired voice, and its note-off.
    let midiOut: MIDIOutQueue
    /// Each voice's own MIDI port's notes (`midi_out: voices`), and per slot its queue's index or −1.
    private let voiceMIDIOut: ContiguousArray<MIDIOutQueue>
    private let voiceMIDIPort: ContiguousArray<Int32>
    private let firedReports: SPSCRing<FiredVoice>.Producer?
    private let observations: SPSCRing<EngineObservation>.Producer?
    /// Nil: every report goes out (offline); else only while someone listens.
    private let listeners: ReportListeners?
    /// Heart-driven voices with latent paths fire early.
    private var compensation: LatencyCompensation
    private let masterInserts: InsertChain?
    /// Where the path latency is published (`publishedLatency`).
    private let handle: EngineHandle

    init(_ setup: borrowing EngineSetup, active: ActiveVoices) {
        slots = setup.slots
        self.active = active
        counters = setup.handle.counters
        sampleRate = setup.sampleRate
        midiOut = MIDIOutQueue(counters: counters)
        let voicePorts = setup.outputs.voiceBus.isEmpty ? [] : setup.outputs.voiceMIDIPort
        precondition(voicePorts.isEmpty || voicePorts.count == setup.slots.count)
        let count = Int(voicePorts.max() ?? -1) + 1
        voiceMIDIOut = ContiguousArray((0..<count).map { _ in MIDIOutQueue(capacity: 256, counters: setup.handle.counters) })
        voiceMIDIPort = ContiguousArray(voicePorts)
        firedReports = setup.firedReports?.producer
        observations = setup.observations?.producer
        listeners = setup.reportListeners
        masterInserts = setup.masterInserts
        handle = setup.handle
        compensation = LatencyCompensation(slots: setup.slots, masterHasInserts: setup.masterInserts != nil)
    }

    /// How many voices have a MIDI port of their own.
    var voiceMIDIPortCount: Int { voiceMIDIOut.count }

    /// Real-time safe. Sub-blocks are split at event frames, so a note always starts at offset 0
    /// of the next render.
    func fire(_ index: Int32, velocity: Float, at frame: Int64) {
        let slot = slots[Int(index)]
        slot.voice.trigger(atFrame: 0, velocity: velocity)
        report(slot, index: index, velocity: velocity, at: frame)
    }

    /// Real-time safe. Voice `index`, if it plays now (enabled, not silenced by a solo).
    func fireIfPlaying(_ index: Int32, velocity: Float, at frame: Int64) {
        guard index >= 0, Int(index) < slots.count, slots[Int(index)].enabled, !slots[Int(index)].silenced else { return }
        fire(index, velocity: velocity, at: frame)
    }

    /// Real-time safe. Voice `index` sounds again (a new clip): it renders until silent.
    func wake(_ index: Int32) { active.wake(Int(index)) }

    /// Real-time safe. Every voice of heart `performer` on pulse `pulse` of beat `beat`.
    /// `fromClock`: the clock's pulse, which voices fired early (their latency compensated)
    /// have already played.
    func fireHeartVoices(performer: Int, beat: Int64, pulse: Int, velocity: Float, framesPerBeat: Double, fromClock: Bool,
                         at frame: Int64) {
        for index in 0..<slots.count where slots[index].performer == performer {
            // A latent voice may have played this pulse early: each pulse once, whatever its latency did.
            if fromClock && compensation.isLatent(index) && !compensation.claim(index, beat: beat, pulse: pulse) { continue }
            fireHeartVoice(index, beat: beat, pulse: pulse, velocity: velocity, framesPerBeat: framesPerBeat, at: frame, beatFrame: frame)
        }
    }

    /// Real-time safe. Before a block [`start`, `end`): the latent voices' early firings in it,
    /// planned from the first performer's clock, and the path latency published when it changed
    /// (true then: the control thread reports it to JACK and says it).
    @discardableResult
    mutating func planEarly(hearts: borrowing EngineHearts, start: Int64, end: Int64) -> Bool {
        compensation.plan(hearts: hearts, slots: slots, master: masterInserts, sampleRate: sampleRate, start: start, end: end)
        guard compensation.largest != handle.publishedLatency.load(ordering: .relaxed) else { return false }
        handle.publishedLatency.store(compensation.largest, ordering: .relaxed)
        return true
    }

    /// Real-time safe. The frame of the next early firing planned, if any.
    var nextEarlyFrame: Int64? { compensation.nextFrame }

    /// Real-time safe. The next early firing: a latent voice's pulse, `L` frames before the
    /// pulse's own frame. False when none was due.
    mutating func fireEarly() -> Bool {
        guard let firing = compensation.pop() else { return false }
        fireHeartVoice(Int(firing.slot), beat: firing.beat, pulse: firing.pulse, velocity: 1, framesPerBeat: firing.framesPerBeat,
                       at: firing.frame, beatFrame: firing.beatFrame)
        return true
    }

    /// Real-time safe. Voice `index` on pulse `pulse` of beat `beat`, if its rate fires there;
    /// reported (fired report, MIDI out) at `beatFrame`, where it sounds.
    private func fireHeartVoice(_ index: Int, beat: Int64, pulse: Int, velocity: Float, framesPerBeat: Double, at frame: Int64,
                                beatFrame: Int64) {
        let slot = slots[index]
        guard slot.followsHeart && slot.enabled && !slot.silenced else { return }
        let noteVelocity = velocity * slot.noteVelocity
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

    /// Real-time safe. Counts a fired note, chokes its group, and reports it out of the thread.
    private func report(_ slot: VoiceSlot, index: Int32, velocity: Float, at frame: Int64) {
        if slot.chokeGroup != 0 {
            for other in 0..<slots.count where other != Int(index) && slots[other].chokeGroup == slot.chokeGroup {
                slots[other].voice.choke()
            }
        }
        active.wake(Int(index))
        counters.add(.voicesFired)
        let note = slot.midiOut
        midiOut.noteOn(frame: frame, channel: note.channel, key: note.key, velocity: velocity, length: note.length)
        // `count`, not `isEmpty`: ContiguousArray's isEmpty is Collection's, whose witness table
        // an unspecialised build instantiates at the first call (an allocation).
        if voiceMIDIPort.count > 0, voiceMIDIPort[Int(index)] >= 0 {
            voiceMIDIOut[Int(voiceMIDIPort[Int(index)])].noteOn(frame: frame, channel: note.channel, key: note.key,
                                                                velocity: velocity, length: note.length)
        }
        if let firedReports, wanted, !firedReports.push(FiredVoice(frame: frame, voice: index, velocity: velocity)) {
            counters.add(.firedReportsDropped)
        }
    }

    /// Real-time safe. Tells the live picture; a full ring drops it (counted).
    func observed(_ kind: EngineObservation.Kind, _ index: Int32, at frame: Int64, value: Float) {
        if let observations, wanted, !observations.push(EngineObservation(kind: kind, index: index, frame: frame, value: value)) {
            counters.add(.firedReportsDropped)
        }
    }

    /// Real-time safe. Whether a report is wanted now (noted, so the listener is woken).
    private var wanted: Bool {
        guard let listeners else { return true }
        guard listeners.isListening else { return false }
        listeners.noteReported()
        return true
    }

    /// Real-time safe. At the period's end: the listener woken when something was reported.
    func wakeListeners() { listeners?.ringIfReported() }

    /// Real-time safe. After a period: voice MIDI port `number`'s notes due in it, written into
    /// `buffer` (a JACK MIDI port buffer, cleared first).
    func flushVoiceMIDI(_ number: Int, start: Int64, frames: Int, into write: (Int, MIDIEvent) -> Bool) {
        voiceMIDIOut[number].flush(start: start, frames: frames, into: write)
    }

    /// Real-time safe. Voice MIDI port `number`'s notes due before `end`, dropped (nothing is connected to it).
    func discardVoiceMIDI(_ number: Int, before end: Int64) {
        voiceMIDIOut[number].discard(before: end)
    }

    /// Real-time safe. Offline, with no ports to write to: the notes due before `end` are dropped.
    func discardMIDI(before end: Int64) {
        midiOut.discard(before: end)
        for index in 0..<voiceMIDIOut.count { voiceMIDIOut[index].discard(before: end) }
    }

    /// Offline. The first fired-voice and observation pushes instantiate their
    /// generic metadata here, not on the process thread.
    func warmUp() {
        if firedReports != nil {
            let scratchFired = SPSCRing<FiredVoice>(minimumCapacity: 2)
            _ = scratchFired.producer.push(FiredVoice(frame: 0, voice: 0, velocity: 0))
        }
        if observations != nil {
            let scratchObservations = SPSCRing<EngineObservation>(minimumCapacity: 2)
            _ = scratchObservations.producer.push(EngineObservation(kind: .beat, index: 0, frame: 0, value: 1))
        }
    }

    /// Control thread, neither engine running: the notes `old` had yet to send, on every port,
    /// at the frames `moved` gives them.
    func takeOver(_ old: borrowing VoiceFiring, moved: (Int64) -> Int64) {
        midiOut.takeOver(old.midiOut, moved: moved)
        for index in 0..<min(voiceMIDIOut.count, old.voiceMIDIOut.count) { voiceMIDIOut[index].takeOver(old.voiceMIDIOut[index], moved: moved) }
    }
}
