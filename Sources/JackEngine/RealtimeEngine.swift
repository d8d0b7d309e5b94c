import CJack
import Control
import Voices

/// Everything the process callback touches, built and sized before activation.
///
/// Each period it drains the control rings, places every message at its absolute frame in the
/// event queue, and renders the period in sub-blocks split exactly at event and pulse frames,
/// so an event due at frame F sounds at frame F. The same engine runs under JACK and offline.
public final class RealtimeEngine: @unchecked Sendable {
    public let sampleRate: Int
    /// The largest block rendered at once; longer periods are processed in chunks of it.
    public let maxFrames: Int
    public let counters = EngineCounters()
    /// Voice names, by index: what control messages and fired reports refer to.
    public let voiceNames: [String]

    private let slots: ContiguousArray<VoiceSlot>
    private var sources: ContiguousArray<SPSCRing<ControlMessage>.Consumer> = []
    private let firedReports: SPSCRing<FiredVoice>.Producer?
    private var queue: EventQueue
    public private(set) var clock: HeartbeatClock
    /// MIDI note number → voice index (−1: none).
    private let noteVoices: UnsafeMutablePointer<Int32>
    /// Region index → voice index (−1: none).
    private let regionVoices: ContiguousArray<Int32>
    private let scratchLeft: UnsafeMutablePointer<Float>
    private let scratchRight: UnsafeMutablePointer<Float>

    /// Absolute engine frame of the next frame to render (frames since the engine started).
    public private(set) var framePosition: Int64 = 0
    /// Explicit beats received, for every-Nth-beat voices fired by them.
    private var explicitBeats: Int64 = 0
    public private(set) var mode: PerformanceMode = .freestyle

    public static let eventQueueCapacity = 4096

    /// Control thread. `firedReports`, when given, receives a report for every fired voice.
    init(sampleRate: Int, maxFrames: Int, slots: [VoiceSlot], noteVoices: [Int: Int], regionVoices: [Int32],
         firedReports: SPSCRing<FiredVoice>.Producer?) {
        precondition(maxFrames > 0)
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        self.slots = ContiguousArray(slots)
        voiceNames = slots.map(\.name)
        self.firedReports = firedReports
        queue = EventQueue(capacity: Self.eventQueueCapacity)
        clock = HeartbeatClock(sampleRate: sampleRate)
        self.noteVoices = .allocate(capacity: 128)
        self.noteVoices.initialize(repeating: -1, count: 128)
        for (note, voice) in noteVoices where (0..<128).contains(note) {
            self.noteVoices[note] = Int32(voice)
        }
        self.regionVoices = ContiguousArray(regionVoices)
        scratchLeft = .allocate(capacity: maxFrames)
        scratchRight = .allocate(capacity: maxFrames)
        for slot in slots { slot.voice.prepare(sampleRate: sampleRate, maxFrames: maxFrames) }
    }

    deinit {
        queue.deallocate()
        noteVoices.deallocate()
        scratchLeft.deallocate()
        scratchRight.deallocate()
    }

    /// Control thread, before activation: a ring the process thread drains every period.
    public func addSource(_ ring: SPSCRing<ControlMessage>) {
        sources.append(ring.consumer)
    }

    /// Control thread, before activation: index of the voice named `name`.
    public func voiceIndex(named name: String) -> Int? { voiceNames.firstIndex(of: name) }

    /// Control thread, before activation. Runs one silent period so that every lazy global and
    /// generic metadata the process path needs exists before the process thread first runs it.
    public func warmUp() {
        let left = UnsafeMutablePointer<Float>.allocate(capacity: maxFrames)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: maxFrames)
        defer { left.deallocate(); right.deallocate() }
        for slot in slots { slot.voice.render(left: left, right: right, frames: 1) }
        // A zero-frame chunk walks the drain and scheduling path: messages already waiting move
        // into the event queue at their frames, and nothing is rendered or lost.
        processChunk(frames: 0, left: left, right: right)
        _ = counters.snapshot()
    }

    // MARK: - The process path

    /// Real-time safe. Renders `frames` frames into `left` and `right` (overwriting them), with
    /// `midiIn` an optional JACK MIDI port buffer whose events are placed at their frame offsets.
    public func process(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                        midiIn: UnsafeMutableRawPointer? = nil) {
        pj_rt_enter()
        defer { pj_rt_exit() }
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        if let midiIn { receiveMIDI(midiIn) }
        var done = 0
        while done < frames {
            let chunk = min(maxFrames, frames - done)
            processChunk(frames: chunk, left: left + done, right: right + done)
            done += chunk
        }
        counters.periods.wrappingIncrement(ordering: .relaxed)
        counters.framesProcessed.wrappingIncrement(by: frames, ordering: .relaxed)
    }

    /// Real-time safe.
    private func processChunk(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        let start = framePosition
        let end = start + Int64(frames)
        drainSources(periodStart: start)
        var cursor = start
        // Bounded: each pass either ends the chunk or consumes one queued event or one pulse,
        // and both are finite within a chunk (queue capacity; at most 60 pulses a second).
        while true {
            let eventFrame = queue.earliestFrame.map { max($0, cursor) } ?? end
            let pulseFrame = clock.nextPulseFrame.map { max($0, cursor) } ?? end
            let next = min(eventFrame, pulseFrame, end)
            if next > cursor {
                renderVoices(offset: Int(cursor - start), frames: Int(next - cursor), left: left, right: right)
                cursor = next
            }
            if cursor == end { break }
            if eventFrame == cursor, let scheduled = queue.popEarliest() {
                apply(scheduled.event, at: cursor)
            } else {
                firePulse(at: cursor)
            }
        }
        clock.advance(to: end)
        framePosition = end
    }

    /// Real-time safe. Reads only what each ring held when the drain began.
    private func drainSources(periodStart: Int64) {
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
                schedule(message.event, at: frame)
            }
        }
    }

    /// Real-time safe.
    private func schedule(_ event: ControlMessage.Event, at frame: Int64) {
        if !queue.insert(frame: frame, event) {
            counters.queueOverflows.wrappingIncrement(ordering: .relaxed)
        }
    }

    /// Real-time safe. Note-ons become triggers of the mapped voice at the event's own offset.
    private func receiveMIDI(_ buffer: UnsafeMutableRawPointer) {
        let count = jack_midi_get_event_count(buffer)
        var event = jack_midi_event_t()
        for index in 0..<count {
            guard jack_midi_event_get(&event, buffer, index) == 0, event.size >= 3, let bytes = event.buffer else { continue }
            let status = bytes[0] & 0xF0
            let note = Int(bytes[1] & 0x7F)
            let velocity = bytes[2] & 0x7F
            guard status == 0x90, velocity > 0 else { continue }
            let voice = noteVoices[note]
            guard voice >= 0 else { continue }
            schedule(.voiceTrigger(voice: voice, velocity: Float(velocity) / 127), at: framePosition + Int64(event.time))
        }
    }

    /// Real-time safe.
    private func apply(_ event: ControlMessage.Event, at frame: Int64) {
        counters.messagesApplied.wrappingIncrement(ordering: .relaxed)
        switch event {
        case .tempo(let bpm):
            if !clock.setTempo(bpm: bpm, atFrame: frame) {
                counters.rejectedTempos.wrappingIncrement(ordering: .relaxed)
            }
        case .heartbeat(let strength):
            guard strength.isFinite else { return invalid() }
            let beat = explicitBeats
            explicitBeats += 1
            counters.beats.wrappingIncrement(ordering: .relaxed)
            fireHeartVoices(beat: beat, pulse: 0, velocity: min(max(strength, 0), 1), at: frame)
        case .voiceTrigger(let voice, let velocity):
            guard let slot = slot(voice), velocity.isFinite else { return invalid() }
            if slot.enabled && !slot.silenced { fire(slot, index: voice, velocity: velocity, at: frame) }
        case .voiceParameter(let voice, let parameter):
            guard let slot = slot(voice) else { return invalid() }
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
            guard region >= 0, Int(region) < regionVoices.count, velocity.isFinite else { return invalid() }
            let voice = regionVoices[Int(region)]
            if let slot = slot(voice), slot.enabled, !slot.silenced {
                fire(slot, index: voice, velocity: velocity, at: frame)
            }
        case .modeChange(let newMode):
            mode = newMode
        }
    }

    @inline(__always)
    private func invalid() { counters.invalidMessages.wrappingIncrement(ordering: .relaxed) }

    @inline(__always)
    private func slot(_ index: Int32) -> VoiceSlot? {
        index >= 0 && Int(index) < slots.count ? slots[Int(index)] : nil
    }

    /// Real-time safe.
    private func firePulse(at frame: Int64) {
        let position = clock.nextPulsePosition
        clock.consumePulse()
        if position.pulse == 0 { counters.beats.wrappingIncrement(ordering: .relaxed) }
        fireHeartVoices(beat: position.beat, pulse: position.pulse, velocity: 1, at: frame)
    }

    /// Real-time safe.
    private func fireHeartVoices(beat: Int64, pulse: Int, velocity: Float, at frame: Int64) {
        for index in 0..<slots.count {
            let slot = slots[index]
            if slot.followsHeart && slot.enabled && !slot.silenced && slot.rate.fires(beat: beat, pulse: pulse) {
                fire(slot, index: Int32(index), velocity: velocity, at: frame)
            }
        }
    }

    /// Real-time safe. Sub-blocks are split at event frames, so a note always starts at offset 0
    /// of the next render.
    private func fire(_ slot: VoiceSlot, index: Int32, velocity: Float, at frame: Int64) {
        slot.voice.trigger(atFrame: 0, velocity: velocity)
        counters.voicesFired.wrappingIncrement(ordering: .relaxed)
        if let firedReports, !firedReports.push(FiredVoice(frame: frame, voice: index, velocity: velocity)) {
            counters.firedReportsDropped.wrappingIncrement(ordering: .relaxed)
        }
    }

    /// Real-time safe. Mixes every voice into the output from `offset` for `frames` frames.
    private func renderVoices(offset: Int, frames: Int, left: UnsafeMutablePointer<Float>,
                              right: UnsafeMutablePointer<Float>) {
        for index in 0..<slots.count {
            let slot = slots[index]
            if slot.silenced { continue }
            scratchLeft.update(repeating: 0, count: frames)
            scratchRight.update(repeating: 0, count: frames)
            slot.voice.render(left: scratchLeft, right: scratchRight, frames: frames)
            let gains = slot.channelGains
            let outLeft = left + offset
            let outRight = right + offset
            for frame in 0..<frames {
                outLeft[frame] += scratchLeft[frame] * gains.left
                outRight[frame] += scratchRight[frame] * gains.right
            }
        }
    }
}
