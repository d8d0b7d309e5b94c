import Realtime
import Plugins

/// The preset's modulations on the process thread: each source's value read when it changes
/// (at its message's frame) and at the control blocks' boundaries while something moves
/// (smoothing, a dropout's glide, the beat's phase), mapped, and set on its destination — at
/// most once per control block (`Modulation.blockFrames`). Their state is plain values in one
/// buffer; a change of the world visits only the modulations that read it, and a pass reads
/// each distinct source once. Made before activation (`ModulationBank+Making`); bounded by the
/// number of modulations.
package final class ModulationBank {
    let states: FixedBuffer<ModulationState>
    /// Every modulation's scale points, each one's a range (`ModulationState.firstPoint`).
    let points: FixedBuffer<Float>
    /// The modulations that follow each `SourceKey`: `readers[readerStart[k] ..< readerStart[k + 1]]`.
    let readers: FixedBuffer<Int32>
    let readerStart: FixedBuffer<Int32>
    /// Each distinct source's reading in the pass that read it last (`readPass`).
    let sourceReads: FixedBuffer<SourceReading>
    let readPass: FixedBuffer<UInt64>
    private var pass: UInt64 = 0
    let readings: BodyReadings
    let performers: Int
    let signals: Int
    private let slots: ContiguousArray<VoiceSlot>
    /// The same slots as `set` reads them: uncounted, which is safe while `slots` holds them.
    private let slotsUncounted: FixedBuffer<Unmanaged<VoiceSlot>>
    private let graph: VoiceGraph
    private let master: MasterStage
    private let published: ModulationReadings
    /// The earliest frame any modulation must be evaluated at (`Int64.max`: none).
    var nextDue = Int64.max
    /// Whether any modulation reads each MIDI controller.
    let readsController: FixedBuffer<Bool>

    static let block = Modulation.blockFrames

    /// A source's value, the frame it came at, and (a heart's) since when it has been quiet.
    struct SourceReading: BitwiseCopyable {
        var value: Double
        var frame: Int64
        var quietSince: Int64?
    }

    init(_ modulations: [Modulation], signals: Int, performers: Int, sampleRate: Int, slots: ContiguousArray<VoiceSlot>,
         graph: VoiceGraph, master: MasterStage, published: ModulationReadings) {
        let layout = Layout(modulations, signals: signals, performers: performers, sampleRate: sampleRate)
        states = FixedBuffer(layout.states)
        points = FixedBuffer(layout.points)
        readers = FixedBuffer(layout.readers)
        readerStart = FixedBuffer(layout.readerStart)
        readsController = FixedBuffer(layout.readsController)
        sourceReads = FixedBuffer(capacity: layout.sourceCount, repeating: SourceReading(value: .nan, frame: -1, quietSince: nil))
        readPass = FixedBuffer(capacity: layout.sourceCount, repeating: 0)
        readings = BodyReadings(performers: performers, signals: signals)
        self.performers = performers
        self.signals = signals
        self.slots = slots
        slotsUncounted = FixedBuffer(uncounted: slots)
        self.graph = graph
        self.master = master
        self.published = published
    }

    var count: Int { states.capacity }

    /// Real-time safe. The first block boundary at or after `frame`, and the one after `frame`'s block.
    @inline(__always)
    static func boundary(atOrAfter frame: Int64) -> Int64 { (frame + block - 1) / block * block }
    @inline(__always)
    static func nextBlock(after frame: Int64) -> Int64 { (frame / block + 1) * block }

    /// Real-time safe. The world changed for sources of `key` at `frame` (a message applied):
    /// the modulations that read it without smoothing follow at once unless their destination
    /// already changed in this block; the rest at the next boundary.
    func changed(_ key: SourceKey, at frame: Int64, blockStart: Int64, periodStart: Int64, hearts: borrowing EngineHearts) {
        guard let keyIndex = key.index(performers: performers, signals: signals) else { return }
        pass &+= 1
        let state = states.pointer
        for reader in Int(readerStart[keyIndex]) ..< Int(readerStart[keyIndex + 1]) {
            let index = Int(readers[reader])
            if state[index].smoothing > 0 || state[index].changedBlock == frame / Self.block {
                state[index].nextDue = min(state[index].nextDue,
                                           state[index].smoothing > 0 ? Self.boundary(atOrAfter: frame) : Self.nextBlock(after: frame))
            } else {
                evaluate(&state[index], at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
            }
        }
        updateNextDue()
    }

    /// Real-time safe. A block boundary: every modulation due by `frame` evaluated.
    func evaluateDue(at frame: Int64, blockStart: Int64, periodStart: Int64, hearts: borrowing EngineHearts) {
        pass &+= 1
        let state = states.pointer
        var earliest = Int64.max
        for index in 0..<states.capacity {
            if state[index].nextDue <= frame {
                evaluate(&state[index], at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
            }
            earliest = min(earliest, state[index].nextDue)
        }
        nextDue = earliest
    }

    /// Real-time safe. Modulation `index` on or off at `frame`; off, its destination returns to
    /// its base. False for no such modulation.
    func enable(_ index: Int32, _ on: Bool, at frame: Int64, blockStart: Int64, periodStart: Int64, hearts: borrowing EngineHearts) -> Bool {
        guard index >= 0, Int(index) < states.capacity else { return false }
        let state = states.pointer + Int(index)
        guard state.pointee.enabled != on else { return true }
        state.pointee.enabled = on
        if on {
            pass &+= 1
            state.pointee.output = .nan
            state.pointee.changedBlock = -1
            evaluate(&state.pointee, at: frame, blockStart: blockStart, periodStart: periodStart, hearts: hearts)
        } else {
            set(state.pointee.destination, to: .nan, base: state.pointee.base, at: frame, blockStart: blockStart, periodStart: periodStart)
            state.pointee.output = .nan
        }
        updateNextDue()
        return true
    }

    /// Real-time safe. A manual change (page, OSC, MIDI) to `destination` while a modulation that
    /// is on sets it: it becomes that modulation's base, heard when it is switched off. False when
    /// none owns it (the change applies at once).
    func takeManualChange(of destination: ModulationDestination, _ value: Float) -> Bool {
        for index in 0..<states.capacity where states.pointer[index].destination == destination && states.pointer[index].enabled {
            states.pointer[index].base = value
            return true
        }
        return false
    }

    /// Real-time safe. Each modulation's source and destination values now, for other threads.
    func publish() {
        let state = states.pointer
        for index in 0..<states.capacity {
            published.store(index, reading: Float(state[index].reading), output: state[index].output, enabled: state[index].enabled)
        }
    }

    /// Real-time safe. `nextDue` from every modulation's.
    func updateNextDue() {
        var earliest = Int64.max
        for index in 0..<states.capacity { earliest = min(earliest, states.pointer[index].nextDue) }
        nextDue = earliest
    }

    /// Real-time safe. The source read at `frame`, glided, smoothed (at a boundary), mapped and
    /// set; when it must be evaluated again.
    private func evaluate(_ state: inout ModulationState, at frame: Int64, blockStart: Int64, periodStart: Int64,
                          hearts: borrowing EngineHearts) {
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
        let value = state.destinationValue(y, points: points.pointer)
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
    /// when it has been quiet (nil: it is not). Read once per pass for each distinct source.
    private func sourceValue(_ state: borrowing ModulationState, at frame: Int64, hearts: borrowing EngineHearts) -> SourceReading {
        let slot = Int(state.sourceSlot)
        var reading: SourceReading
        if readPass[slot] == pass {
            reading = sourceReads[slot]
        } else {
            switch state.source {
            case .heart(let performer, let measure):
                let heart = hearts.measure(measure, of: Int(performer), at: frame)
                reading = SourceReading(value: heart.value, frame: heart.frame, quietSince: heart.quietSince)
            case .beatPhase(let performer):
                let phase = hearts.phase(of: Int(performer), at: frame)
                reading = SourceReading(value: phase.value, frame: phase.frame, quietSince: phase.quietSince)
            default:
                let body = readings.value(of: state.source)
                reading = SourceReading(value: body.value, frame: body.frame, quietSince: nil)
            }
            sourceReads[slot] = reading
            readPass[slot] = pass
        }
        // Any source but a heart's is quiet once nothing has come for the modulation's `after`.
        if !state.source.isHeart, state.glides, reading.frame >= 0, frame >= reading.frame + state.quietAfterFrames {
            reading.quietSince = reading.frame + state.quietAfterFrames
        }
        return reading
    }

    /// Real-time safe. `destination` to `value` at `frame` (NaN: the modulation lets go, back to `base`).
    private func set(_ destination: ModulationDestination, to value: Float, base: Float, at frame: Int64, blockStart: Int64, periodStart: Int64) {
        switch destination {
        case .voiceGain(let voice): slotsUncounted[Int(voice)]._withUnsafeGuaranteedRef { $0.modulatedGain = value }
        case .voicePan(let voice): slotsUncounted[Int(voice)]._withUnsafeGuaranteedRef { $0.modulatedPan = value }
        case .voiceVelocity(let voice): slotsUncounted[Int(voice)]._withUnsafeGuaranteedRef { $0.modulatedVelocity = value }
        case .insertControl(let address):
            let offset = Int(frame - blockStart), control = value.isNaN ? base : value
            if address.chain == InsertAddress.master {
                graph.masterInserts?.change(stage: Int(address.stage), port: address.port, value: control, atOffset: offset)
            } else if address.chain >= 0 && Int(address.chain) < slotsUncounted.count {
                slotsUncounted[Int(address.chain)]._withUnsafeGuaranteedRef {
                    $0.inserts?.change(stage: Int(address.stage), port: address.port, value: control, atOffset: offset)
                }
            }
        case .instrumentControl(let voice, let port):
            slotsUncounted[Int(voice)]._withUnsafeGuaranteedRef { $0.instrumentVoice?.setControl(port, value.isNaN ? base : value) }
        case .masterGain:
            master.changeGain(to: value.isNaN ? 1 : value, atOffset: Int(frame - periodStart))
        }
    }
}
