import Atomics
import Voices
import Realtime

/// The hearts the voices follow: each performer's (one when the preset names none), and the
/// ensemble's after them when a voice follows it — their clocks and explicit beats, their tempi
/// published for other threads, `together` voices that fire where two hearts' beats align,
/// dropout fades, and the beat grid shared with other engines (`grid_out`, `grid_in`). Owned by
/// the engine by value; allocated before activation.
package struct EngineHearts: ~Copyable {
    private let hearts: ContiguousArray<PerformerHeart>
    let performerCount: Int
    /// Hearts: the performers', and the ensemble's after them.
    let count: Int
    private let ensemble: EnsembleTempo?
    /// Scratch for the ensemble's tempo (the performers' tempi, sorted for the median).
    private let tempi: FixedBuffer<Double>
    /// Slots of `together` voices.
    private let togetherSlots: ContiguousArray<Int>
    private let slots: ContiguousArray<VoiceSlot>
    private let publishedBPMs: ContiguousArray<ManagedAtomic<UInt64>>
    private let variabilityReadings: VariabilityReadings
    private let counters: EngineCounters
    private let sampleRate: Int
    /// Seconds a dropout's fade (and the return) takes.
    private let fadeSeconds: Float
    /// The beat grid shared with other engines.
    let grid: SharedGrid
    /// The heart whose beats are the shared grid: the ensemble's when there is one, else the
    /// first performer's. `--timebase` publishes its tempo; `--follow-transport` drives it.
    let gridHeart: Int

    init(_ setup: borrowing EngineSetup) {
        let handle = setup.handle
        performerCount = handle.performerCount
        ensemble = handle.ensemble
        count = performerCount + (ensemble == nil ? 0 : 1)
        hearts = ContiguousArray((0..<count).map { _ in PerformerHeart(sampleRate: setup.sampleRate, variabilityWindow: setup.hrvWindowSeconds) })
        variabilityReadings = handle.variability
        tempi = FixedBuffer(capacity: 256, repeating: 0)
        togetherSlots = ContiguousArray(setup.slots.indices.filter { setup.slots[$0].together != nil })
        slots = setup.slots
        publishedBPMs = handle.publishedBPMs
        counters = handle.counters
        sampleRate = setup.sampleRate
        fadeSeconds = setup.heartFadeSeconds
        grid = SharedGrid(counters: handle.grid)
        grid.sends = setup.sendsGrid
        grid.follows = setup.followsGrid
        gridHeart = ensemble == nil ? 0 : performerCount
    }

    /// Real-time safe. Heart `index`, for what reads its clock only sometimes: `clock(_:)`
    /// returns a copy of the clock.
    @inline(__always)
    func heart(_ index: Int) -> PerformerHeart { hearts[index] }

    /// Real-time safe. Heart `index`'s clock.
    @inline(__always)
    func clock(_ index: Int) -> HeartbeatClock { hearts[index].clock }

    /// Whether heart `performer`'s tempo and beats come from the grid, not from its messages.
    @inline(__always)
    func followsGrid(_ performer: Int) -> Bool { grid.follows && performer == gridHeart }

    /// Real-time safe. Performer `performer`'s tempo from `frame`; their tempo-following voices
    /// follow it, and the ensemble's tempo follows the performers'.
    func setTempo(_ bpm: Double, at frame: Int64, performer: Int) {
        let heart = hearts[performer]
        if !heart.clock.setTempo(bpm: bpm, atFrame: frame) {
            counters.add(.rejectedTempos)
            return
        }
        heart.lastDataFrame = frame
        publishedBPMs[performer].store(heart.clock.bpm.bitPattern, ordering: .relaxed)
        for index in 0..<slots.count where slots[index].performer == performer { slots[index].tempoVoice?.follow(bpm: bpm) }
        if let ensemble, performer < performerCount, !grid.follows {
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

    /// Real-time safe. An explicit beat of heart `index` (a `/pulse/beat` or a grid beat).
    func explicitBeat(_ index: Int, strength: Float, at frame: Int64, firing: borrowing VoiceFiring) {
        let heart = hearts[index]
        let beat = heart.explicitBeats
        heart.explicitBeats += 1
        if heart.lastExplicitBeatFrame >= 0, frame > heart.lastExplicitBeatFrame {
            heart.explicitBeatFrames = Double(frame - heart.lastExplicitBeatFrame)
            if !heart.intervalsFromSensor { interval(heart.explicitBeatFrames / Double(sampleRate), of: index) }
        }
        heart.lastExplicitBeatFrame = frame
        heart.lastDataFrame = frame
        counters.add(.beats)
        let velocity = min(max(strength, 0), 1)
        firing.observed(.beat, Int32(index), at: frame, value: velocity)
        beatHeard(index, beat: beat, at: frame, firing: firing)
        firing.fireHeartVoices(performer: index, beat: beat, pulse: 0, velocity: velocity,
                               framesPerBeat: heart.explicitBeatFrames, fromClock: false, at: frame)
    }

    /// Real-time safe. A grid beat (`grid_in`) applied at `frame`: the grid heart's beat, at the
    /// position the timebase gave it.
    func gridBeat(at frame: Int64, firing: borrowing VoiceFiring) {
        guard let position = grid.take(at: frame) else { return }
        hearts[gridHeart].explicitBeats = position
        explicitBeat(gridHeart, strength: 1, at: frame, firing: firing)
    }

    /// Real-time safe. A grid beat arrived on `grid_in`; the first one stops the grid heart's own
    /// clock: from then on it beats on the grid only. False when it cannot be kept (counted).
    func receiveGridBeat(position: Int64) -> Bool {
        if !grid.arrived {
            grid.arrived = true
            hearts[gridHeart].clock = HeartbeatClock(sampleRate: sampleRate)
        }
        return grid.receive(position: position)
    }

    /// Real-time safe. The external transport's tempo, taking effect at `frame` when it changed.
    func followTransport(bpm: Double, at frame: Int64) {
        let heart = hearts[gridHeart]
        guard !grid.arrived, bpm != heart.clock.bpm || !heart.clock.isRunning else { return }
        setTempo(bpm, at: frame, performer: gridHeart)
    }

    /// Real-time safe. The grid heart's phase at `frame` laid on `beat` of another grid.
    func alignGrid(beat: Double, at frame: Int64) {
        hearts[gridHeart].clock.align(beat: beat, atFrame: frame)
    }

    /// Real-time safe. Performer `performer`'s heart data present or gone (a dropout) at
    /// `frame`: their voices' level moves toward 1 or 0; their modulation sources hold or glide.
    func presence(_ performer: Int, _ present: Bool, at frame: Int64) {
        let heart = hearts[performer]
        heart.levelTarget = present ? 1 : 0
        if heart.present && !present { heart.quietSince = frame }
        heart.present = present
    }

    /// Real-time safe. The intervals a sensor of heart `performer` measured (a strap's RR, the
    /// ECG's R-peaks, `/pulse/rr`), at `frame`: from now on they, not its beats' spacing, are its variability.
    func sensorIntervals(_ intervals: RRIntervals, of performer: Int, at frame: Int64) {
        let heart = hearts[performer]
        heart.intervalsFromSensor = true
        heart.lastDataFrame = frame
        for number in 0..<Int(intervals.count) { interval(intervals.seconds(at: number), of: performer) }
    }

    /// Real-time safe. One interval of heart `performer`, into its variability, published.
    private func interval(_ seconds: Double, of performer: Int) {
        let variability = hearts[performer].variability
        variability.add(seconds)
        variabilityReadings.store(performer, rmssd: variability.rmssd, sdnn: variability.sdnn, breathRate: variability.breathRate)
    }

    /// Real-time safe. A measure of heart `performer` at `frame` for a modulation (NaN: none yet),
    /// the frame its data last came at, and since when it has been in a dropout (nil: it is not).
    func measure(_ measure: ModulationSource.HeartMeasure, of performer: Int, at frame: Int64)
        -> (value: Double, frame: Int64, quietSince: Int64?) {
        let heart = hearts[performer]
        let quiet: Int64? = heart.present ? nil : heart.quietSince
        let variability = heart.variability
        var value = Double.nan
        switch measure {
        case .bpm:
            if heart.clock.isRunning { value = heart.clock.bpm }
            else if heart.explicitBeats > 1 { value = 60 * Double(sampleRate) / heart.explicitBeatFrames }
        case .rr:
            if !variability.lastInterval.isNaN { value = variability.lastInterval }
            else if heart.clock.isRunning { value = 60 / heart.clock.bpm }
        case .rmssd: value = variability.rmssd
        case .sdnn: value = variability.sdnn
        case .breathRate: value = variability.breathRate
        }
        return (value, heart.lastDataFrame, quiet)
    }

    /// Real-time safe. Where heart `performer` is in its beat at `frame`: 0 at a beat, toward 1
    /// at the next (held at 1 if it is late); NaN before its first beat.
    func phase(of performer: Int, at frame: Int64) -> (value: Double, frame: Int64, quietSince: Int64?) {
        let heart = hearts[performer]
        guard heart.lastBeat >= 0 else { return (.nan, -1, nil) }
        let beatFrames = heart.clock.isRunning ? 60 * Double(sampleRate) / heart.clock.bpm : heart.explicitBeatFrames
        return (min(1, max(0, Double(frame - heart.lastBeat) / beatFrames)), heart.lastBeat, nil)
    }

    /// Real-time safe. The earliest pulse of any heart in [`cursor`, `end`) (the first
    /// performer's on a tie), or `end` when none is due.
    func nextPulse(from cursor: Int64, before end: Int64) -> (frame: Int64, performer: Int) {
        var pulseFrame = end, pulsePerformer = 0
        for performer in 0..<count {
            if let frame = hearts[performer].clock.nextPulseFrame, max(frame, cursor) < pulseFrame {
                pulseFrame = max(frame, cursor)
                pulsePerformer = performer
            }
        }
        return (pulseFrame, pulsePerformer)
    }

    /// Real-time safe. Heart `performer`'s next pulse, consumed: its position and the beat's length.
    func takePulse(_ performer: Int) -> (beat: Int64, pulse: Int, framesPerBeat: Double) {
        let heart = hearts[performer]
        let position = heart.clock.nextPulsePosition
        heart.clock.consumePulse()
        return (position.beat, position.pulse, 60 * Double(sampleRate) / heart.clock.bpm)
    }

    /// Real-time safe. A beat of heart `performer` heard at `frame` (its clock's): counted,
    /// observed, paired for `together` voices, sent on the grid.
    func beatPassed(_ performer: Int, beat: Int64, at frame: Int64, firing: borrowing VoiceFiring) {
        counters.add(.beats)
        firing.observed(.beat, Int32(performer), at: frame, value: 1)
        beatHeard(performer, beat: beat, at: frame, firing: firing)
    }

    /// Real-time safe. A beat of heart `performer` at `frame`: a `together` voice of that
    /// performer and another fires when the other's last beat is within its window and neither
    /// beat has fired it yet (at this, the second, beat's frame).
    private func beatHeard(_ performer: Int, beat: Int64, at frame: Int64, firing: borrowing VoiceFiring) {
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
            firing.fireIfPlaying(Int32(index), velocity: slot.noteVelocity, at: frame)
        }
    }

    /// Real-time safe. Each heart's level one block on toward its target (a dropout's fade over
    /// `fadeSeconds`), and each heart-driven voice at its own performer's level.
    func fade(frames: Int) {
        let step = Float(frames) / (Float(sampleRate) * fadeSeconds)
        var changed = false
        for performer in 0..<count {
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

    /// Real-time safe. Every clock moves on to `end`.
    func advance(to end: Int64) {
        for performer in 0..<count { hearts[performer].clock.advance(to: end) }
    }

    /// Real-time safe. JACK moved on without running us until `end`: the pulses due before it
    /// are passed over (still counted as beats) and every clock moves on. The first performer's
    /// beats passed over, for the Tambour pattern to step past. `soundingLate`: the pulses due
    /// before `end` stay due instead, to sound at `end`; `late` counts those a voice fires on.
    /// Bounded: at most 60 pulses a second of gap, and the caller limits the gap.
    func skip(to end: Int64, soundingLate: Bool = false) -> (firstPerformersBeats: Int, late: Int) {
        var firstPerformersBeats = 0, late = 0
        for performer in 0..<count {
            let heart = hearts[performer]
            if soundingLate {
                var due = heart.clock
                while let pulseFrame = due.nextPulseFrame, pulseFrame < end {
                    if firesAVoice(performer, at: due.nextPulsePosition) { late += 1 }
                    due.consumePulse()
                }
            } else {
                while let pulseFrame = heart.clock.nextPulseFrame, pulseFrame < end {
                    if heart.clock.nextPulsePosition.pulse == 0 {
                        counters.add(.beats)
                        if performer == 0 { firstPerformersBeats += 1 }
                    }
                    heart.clock.consumePulse()
                }
            }
            heart.clock.advance(to: end)
        }
        return (firstPerformersBeats, late)
    }

    /// Real-time safe. Whether a voice of heart `performer` fires on this pulse.
    private func firesAVoice(_ performer: Int, at position: (beat: Int64, pulse: Int)) -> Bool {
        for index in 0..<slots.count where slots[index].followsHeart && slots[index].performer == performer && slots[index].rate.fires(beat: position.beat, pulse: position.pulse) {
            return true
        }
        return false
    }

    /// Control thread, neither engine running: every heart of `old` (an engine at another
    /// sample rate, stopped at `frame`) carried over in seconds — tempo and beat phase, explicit
    /// beats and their spacing, the last beats `together` voices pair, the dropout levels.
    func takeOver(_ old: borrowing EngineHearts, at frame: Int64) {
        let ratio = Double(sampleRate) / Double(old.sampleRate)
        func rescaled(_ past: Int64) -> Int64 { past < 0 ? past : frame - Int64((Double(frame - past) * ratio).rounded()) }
        for index in 0..<min(count, old.count) {
            let was = old.hearts[index], heart = hearts[index]
            heart.clock = was.clock.rescaled(to: sampleRate, at: frame)
            heart.explicitBeats = was.explicitBeats
            heart.lastExplicitBeatFrame = rescaled(was.lastExplicitBeatFrame)
            heart.explicitBeatFrames = was.explicitBeatFrames * ratio
            heart.lastBeat = rescaled(was.lastBeat)
            heart.level = was.level
            heart.levelTarget = was.levelTarget
            heart.present = was.present
            heart.quietSince = rescaled(was.quietSince)
            heart.lastDataFrame = rescaled(was.lastDataFrame)
            heart.intervalsFromSensor = was.intervalsFromSensor
            heart.variability.take(was.variability)
            if was.clock.isRunning { publishedBPMs[index].store(was.clock.bpm.bitPattern, ordering: .relaxed) }
        }
        grid.arrived = old.grid.arrived
    }
}
