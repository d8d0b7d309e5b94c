import Realtime
import Plugins

/// The preset's modulations on the process thread: each source's value read when it changes
/// (at its message's frame) and at the control blocks' boundaries while something moves
/// (smoothing, a dropout's glide, the beat's phase), mapped, and set on its destination — at
/// most once per control block (`Modulation.blockFrames`). Made before activation; bounded by
/// the number of modulations.
package final class ModulationBank {
    let states: ContiguousArray<ModulationState>
    let readings: BodyReadings
    private let slots: ContiguousArray<VoiceSlot>
    private let graph: VoiceGraph
    private let master: MasterStage
    private let published: ModulationReadings
    /// The earliest frame any modulation must be evaluated at (`Int64.max`: none).
    private(set) var nextDue = Int64.max
    /// Whether any modulation reads each MIDI controller.
    let readsController: FixedBuffer<Bool>

    static let block = Modulation.blockFrames

    init(_ modulations: [Modulation], signals: Int, performers: Int, sampleRate: Int, slots: ContiguousArray<VoiceSlot>,
         graph: VoiceGraph, master: MasterStage, published: ModulationReadings) {
        states = ContiguousArray(modulations.map { ModulationState($0, sampleRate: sampleRate) })
        readings = BodyReadings(performers: performers, signals: signals)
        self.slots = slots
        self.graph = graph
        self.master = master
        self.published = published
        readsController = FixedBuffer(capacity: 128, repeating: false)
        for modulation in modulations { if case .controller(let number) = modulation.source { readsController[Int(number)] = true } }
    }

    /// Real-time safe. The first block boundary at or after `frame`, and the one after `frame`'s block.
    @inline(__always)
    static func boundary(atOrAfter frame: Int64) -> Int64 { (frame + block - 1) / block * block }
    @inline(__always)
    static func nextBlock(after frame: Int64) -> Int64 { (frame / block + 1) * block }

    /// Real-time safe. The world changed for sources of `key` at `frame` (a message applied):
    /// modulations without smoothing follow at once unless their destination already changed in
    /// this block; the rest at the next boundary.
    func changed(_ key: SourceKey, at frame: Int64, blockStart: Int64, periodStart: Int64, hearts: borrowing EngineHearts) {
        for index in 0..<states.count where states[index].key == key {
            let state = states[index]
            if state.smoothing > 0 || state.changedBlock == frame / Self.block {
                state.nextDue = min(state.nextDue, state.smoothing > 0 ? Self.boundary(atOrAfter: frame) : Self.nextBlock(after: frame))
            } else {
                evaluate(state, at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
            }
        }
        updateNextDue()
    }

    /// Real-time safe. A block boundary: every modulation due by `frame` evaluated.
    func evaluateDue(at frame: Int64, blockStart: Int64, periodStart: Int64, hearts: borrowing EngineHearts) {
        for index in 0..<states.count where states[index].nextDue <= frame {
            evaluate(states[index], at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
        }
        updateNextDue()
    }

    /// Real-time safe. Modulation `index` on or off at `frame`; off, its destination returns to
    /// its base. False for no such modulation.
    func enable(_ index: Int32, _ on: Bool, at frame: Int64, blockStart: Int64, periodStart: Int64, hearts: borrowing EngineHearts) -> Bool {
        guard index >= 0, Int(index) < states.count else { return false }
        let state = states[Int(index)]
        guard state.enabled != on else { return true }
        state.enabled = on
        if on {
            state.output = .nan
            state.changedBlock = -1
            evaluate(state, at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
        } else {
            set(state.destination, to: .nan, base: state.base, at: frame, blockStart: blockStart, periodStart: periodStart)
            state.output = .nan
        }
        updateNextDue()
        return true
    }

    /// Real-time safe. The modulation that sets `destination` while on, if any: a manual change to
    /// it (page, OSC, MIDI) becomes that modulation's base, heard when it is switched off.
    func owner(of destination: ModulationDestination) -> ModulationState? {
        for index in 0..<states.count where states[index].destination == destination && states[index].enabled { return states[index] }
        return nil
    }

    /// Real-time safe. Each modulation's source and destination values now, for other threads.
    func publish() {
        for index in 0..<states.count {
            let state = states[index]
            published.store(index, reading: Float(state.reading), output: state.output, enabled: state.enabled)
        }
    }

    private func updateNextDue() {
        var earliest = Int64.max
        for index in 0..<states.count { earliest = min(earliest, states[index].nextDue) }
        nextDue = earliest
    }

    /// Real-time safe. The source read at `frame`, glided, smoothed (at a boundary), mapped and
    /// set; when it must be evaluated again.
    private func evaluate(_ state: ModulationState, at frame: Int64, blockStart: Int64, periodStart: Int64, hearts: borrowing EngineHearts) {
        let read = sourceValue(state, at: frame, hearts: hearts)
        var due = Int64.max
        if case .beatPhase = state.source { due = Self.nextBlock(after: frame) }
        guard read.value.isFinite else {
            state.nextDue = due
            return
        }
        let x = state.glided(state.mapping.clampedSource(read.value), quietSince: read.quietSince, at: frame)
        state.reading = x
        due = min(due, state.dueForDropout(lastValue: read.frame, quietSince: read.quietSince, at: frame))
        var y = x
        if state.smoothing > 0 {
            let step = state.smooth(x, at: frame)
            due = min(due, step.due)
            guard let smoothed = step.value else {
                state.nextDue = due
                return
            }
            y = smoothed
        }
        let value = state.destinationValue(y)
        if state.enabled && value != state.output {
            if state.changedBlock == frame / Self.block {
                due = min(due, Self.nextBlock(after: frame))
            } else {
                set(state.destination, to: value, base: state.base, at: frame, blockStart: blockStart, periodStart: periodStart)
                state.output = value
                state.changedBlock = frame / Self.block
            }
        }
        state.nextDue = due
    }

    /// Real-time safe. The value of `state`'s source at `frame`, the frame it came at, and since
    /// when it has been quiet (nil: it is not).
    private func sourceValue(_ state: ModulationState, at frame: Int64, hearts: borrowing EngineHearts)
        -> (value: Double, frame: Int64, quietSince: Int64?) {
        switch state.source {
        case .heart(let performer, let measure):
            let reading = hearts.measure(measure, of: Int(performer), at: frame)
            return (reading.value, reading.frame, reading.quietSince)
        case .beatPhase(let performer):
            let reading = hearts.phase(of: Int(performer), at: frame)
            return (reading.value, reading.frame, reading.quietSince)
        default:
            let reading = readings.value(of: state.source)
            let quiet = state.glides && reading.frame >= 0 && frame >= reading.frame + state.quietAfterFrames
            return (reading.value, reading.frame, quiet ? reading.frame + state.quietAfterFrames : nil)
        }
    }

    /// Real-time safe. `destination` to `value` at `frame` (NaN: the modulation lets go, back to `base`).
    private func set(_ destination: ModulationDestination, to value: Float, base: Float, at frame: Int64, blockStart: Int64, periodStart: Int64) {
        switch destination {
        case .voiceGain(let voice): slots[Int(voice)].modulatedGain = value
        case .voicePan(let voice): slots[Int(voice)].modulatedPan = value
        case .voiceVelocity(let voice): slots[Int(voice)].modulatedVelocity = value
        case .insertControl(let address):
            graph.insertChain(address)?.change(stage: Int(address.stage), port: address.port, value: value.isNaN ? base : value,
                                               atOffset: Int(frame - blockStart))
        case .instrumentControl(let voice, let port):
            slots[Int(voice)].instrumentVoice?.setControl(port, value.isNaN ? base : value)
        case .masterGain:
            master.changeGain(to: value.isNaN ? 1 : value, atOffset: Int(frame - periodStart))
        }
    }
}

extension ModulationBank {
    /// Control thread, neither engine running: where `old` stood (the same preset at another
    /// rate) — each modulation's switch, base and values, and the body readings.
    func takeOver(_ old: ModulationBank, at frame: Int64) {
        for (state, was) in zip(states, old.states) {
            state.enabled = was.enabled
            state.base = was.base
            state.smoothed = was.smoothed
            state.reading = was.reading
            state.output = was.output
            state.nextDue = was.nextDue == .max ? .max : Self.boundary(atOrAfter: frame)
        }
        readings.take(old.readings)
        nextDue = states.map(\.nextDue).min() ?? .max
    }
}
