import Plugins
import Voices
import Realtime

/// The voices' mix. Each voice renders into a voice bus (two period buffers), is faded there by
/// its channel gains, and the bus is added into the output. Voices with LV2 inserts, and hosted
/// instruments, have buses of their own, finished once per block (`finishBlock`). A bus holds one voice only while that voice renders and mixes, so
/// one pair of buffers serves every voice in turn and stays in the first-level cache however many
/// play (separate memory per voice cost a quarter of the 64-frame polyphony and a third at 256:
/// BENCHMARKS.md row 3). Only sounding voices cost anything: a voice joins the active set when it
/// fires and leaves it when it reports silence (`Voice.isSounding`), so silent voices are free.
/// A hosted instrument that is the first voice to finish a block skips its bus and renders
/// straight into the output (`renderDirect`): one instrument alone costs no memory a bare host
/// would not touch. Its process-path methods are `mutating` even where they change nothing: a
/// non-mutating call on the engine's stored mixer copied all of it to the stack first.
package struct Mixer: ~Copyable {
    let slots: ContiguousArray<VoiceSlot>
    /// The same slots as the per-sub-block path reads them: uncounted, which is safe while `slots` holds them.
    private let slotsUncounted: FixedBuffer<Unmanaged<VoiceSlot>>
    let maxFrames: Int
    /// The voice bus: left, then right, `maxFrames` each.
    private let bus: FixedBuffer<Float>
    /// The voices that may sound (the firing wakes them).
    private let active: ActiveVoices
    /// Largest change of a channel gain per frame: a full-scale change takes 10 ms.
    private let gainSlewPerFrame: Float
    /// How far any gain the engine ramps (a voice's, the modulated master's) moves in a frame.
    static func gainSlewPerFrame(sampleRate: Int) -> Float { 1 / (0.010 * Float(sampleRate)) }
    /// Voices whose sound is finished per block (a hosted instrument, an insert chain): each
    /// has a bus of its own that its sub-blocks fill and `finishBlock` processes and mixes.
    private let blockSlots: ContiguousArray<Int>
    /// The input voices, which run once per block whether or not anything fired.
    private let inputSlots: ContiguousArray<Int>
    /// Per slot: its own bus's number in `blockBuses`, or −1.
    private let blockBusIndex: FixedBuffer<Int32>
    private let blockBuses: FixedBuffer<Float>
    /// Per slot: the output (a stem) it is also mixed into, or −1 (`configureOutputs`).
    private var outputIndex: FixedBuffer<Int32>
    /// The outputs' own period buffers: left, then right, `maxFrames` each, output after output.
    private var outputs: FixedBuffer<Float>
    /// Where each output is written this period: left, then right, output after output. Its own
    /// buffers, unless a live period bound JACK's port buffers (`bindOutput`), which saves a copy
    /// per port and holds a period of any length.
    private var outputBuffers: FixedBuffer<UnsafeMutablePointer<Float>>
    /// Whether this period's outputs are bound to buffers of the period's length.
    private var outputsBound = false
    /// How many outputs; 0: the master only.
    private var outputCount = 0
    /// Where in the period the current chunk starts (the outputs hold the whole period), and
    /// whether this period fills them (bound, or it fits in `maxFrames`).
    var outputOffset = 0
    var fillsOutputs = false
    /// Whether a voice was mixed into the current block's output yet: until one is, the output
    /// holds the period's zeros, and the first block voice renders straight into it
    /// (`finishBlock`).
    private var blockMixed = false

    /// Control thread.
    init(slots: ContiguousArray<VoiceSlot>, active: ActiveVoices, sampleRate: Int, maxFrames: Int) {
        self.slots = slots
        slotsUncounted = FixedBuffer(uncounted: slots)
        self.maxFrames = maxFrames
        self.active = active
        bus = FixedBuffer(capacity: 2 * maxFrames, repeating: 0)
        gainSlewPerFrame = Self.gainSlewPerFrame(sampleRate: sampleRate)
        let blockSlots = slots.indices.filter { slots[$0].inputVoice == nil && (slots[$0].blockVoice != nil || slots[$0].inserts != nil) }
        self.blockSlots = ContiguousArray(blockSlots)
        inputSlots = ContiguousArray(slots.indices.filter { slots[$0].inputVoice != nil })
        blockBusIndex = FixedBuffer(capacity: slots.count, repeating: -1)
        for (number, index) in blockSlots.enumerated() { blockBusIndex[index] = Int32(number) }
        blockBuses = FixedBuffer(capacity: max(1, blockSlots.count) * 2 * maxFrames, repeating: 0)
        outputIndex = FixedBuffer(capacity: slots.count, repeating: -1)
        outputs = FixedBuffer(capacity: 1, repeating: 0)
        outputBuffers = FixedBuffer(capacity: 0, repeating: bus.pointer)
    }

    /// Offline. Voice `i` is also mixed, after its gain, pan and inserts, into output
    /// `voiceOutputs[i]` (−1: none) of `count`.
    init(slots: ContiguousArray<VoiceSlot>, active: ActiveVoices, sampleRate: Int, maxFrames: Int, voiceOutputs: [Int32], count: Int) {
        self.init(slots: slots, active: active, sampleRate: sampleRate, maxFrames: maxFrames)
        guard count > 0 else { return }
        precondition(voiceOutputs.count == slots.count && voiceOutputs.allSatisfy { $0 < count })
        for (index, output) in voiceOutputs.enumerated() { outputIndex[index] = output }
        outputs = FixedBuffer(capacity: max(1, count) * 2 * maxFrames, repeating: 0)
        outputBuffers = FixedBuffer(capacity: 2 * count, repeating: outputs.pointer)
        outputCount = count
        unbindOutputs()
    }

    /// Whether an input voice reads the audio input.
    var takesInput: Bool { !inputSlots.isEmpty }

    /// Real-time safe. Output `number`'s buffers for the period.
    @inline(__always)
    func output(_ number: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        (outputBuffers[2 * number], outputBuffers[2 * number + 1])
    }

    /// Real-time safe. For the coming period only: output `number` is written straight into these
    /// buffers (JACK's port buffers), which hold the whole period. Bind every output or none.
    mutating func bindOutput(_ number: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        outputBuffers[2 * number] = left
        outputBuffers[2 * number + 1] = right
        outputsBound = true
    }

    /// Real-time safe. Silences the outputs for a period of `frames` (filled only if they hold it).
    mutating func startOutputs(frames: Int) {
        fillsOutputs = outputCount > 0 && (outputsBound || frames <= maxFrames)
        outputOffset = 0
        guard fillsOutputs else { return }
        for index in 0..<2 * outputCount { outputBuffers[index].update(repeating: 0, count: frames) }
    }

    /// Real-time safe. After the period: bound buffers are JACK's for that cycle only, so the
    /// outputs point at their own buffers again.
    mutating func endOutputs() {
        guard outputsBound else { return }
        unbindOutputs()
    }

    /// Real-time safe. The voices' and groups' own outputs get the master's last guard too.
    mutating func sanitizeOutputs(frames: Int, counters: EngineCounters) {
        guard fillsOutputs else { return }
        var found = 0
        for index in 0..<2 * outputCount { found += PluginGuard.sanitize(outputBuffers[index], frames: frames).nonFinite }
        if found > 0 { counters.add(.nonFiniteSamples, found) }
    }

    /// Real-time safe.
    private mutating func unbindOutputs() {
        for index in 0..<2 * outputCount { outputBuffers[index] = outputs.pointer + index * maxFrames }
        outputsBound = false
    }

    /// Real-time safe. Renders every active voice that plays (not the input voices) for `frames`
    /// frames into the output at `offset`. False when none did (the output is as it was).
    @discardableResult
    mutating func renderVoices(offset: Int, frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) -> Bool {
        var rendered = false
        let words = active.words
        for word in 0..<active.wordCount {
            var bits = words[word]
            while bits != 0 {
                let index = word << 6 | bits.trailingZeroBitCount
                bits &= bits &- 1
                let sounds = slotsUncounted[index]._withUnsafeGuaranteedRef { slot in
                    renderVoice(slot, index, offset: offset, frames: frames, left: left, right: right, rendered: &rendered)
                }
                if !sounds { words[word] = words[word] & ~(UInt64(1) << UInt64(index & 63)) }
            }
        }
        return rendered
    }

    /// Real-time safe. One active voice over a sub-block: into its own bus, or mixed through the
    /// shared one. False once it no longer sounds (or takes no part here: silenced, an input voice).
    @inline(__always)
    private mutating func renderVoice(_ slot: VoiceSlot, _ index: Int, offset: Int, frames: Int, left: UnsafeMutablePointer<Float>,
                                      right: UnsafeMutablePointer<Float>, rendered: inout Bool) -> Bool {
        if slot.silenced || slot.isInput { return false }
        rendered = true
        let voice = slot.voice
        let own = blockBusIndex[index]
        if own >= 0 {
            // Filled here sub-block by sub-block; processed and mixed in `finishBlock`.
            let (ownLeft, ownRight) = blockBus(Int(own))
            voice.render(left: ownLeft + offset, right: ownRight + offset, frames: frames)
            return voice.isSounding
        }
        let (busLeft, busRight) = busBuffers()
        busLeft.update(repeating: 0, count: frames)
        busRight.update(repeating: 0, count: frames)
        voice.render(left: busLeft, right: busRight, frames: frames)
        mix(slot, index, busLeft, busRight, into: left + offset, right + offset, at: offset, frames: frames,
            target: ActiveVoices.target(slot))
        blockMixed = true
        return voice.isSounding
    }

    /// Real-time safe. After a block's sub-blocks: each hosted instrument runs over the whole
    /// block, each insert chain processes its voice's bus, and those buses are mixed. A chain
    /// runs even while its voice is silent, so a reverb's tail rings on. False when there is no
    /// such voice (the output is as it was). The first hosted instrument of a block whose output
    /// nothing was mixed into yet renders straight into it (`renderDirect`).
    @discardableResult
    mutating func finishBlock(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) -> Bool {
        defer { blockMixed = false }
        guard frames > 0, !blockSlots.isEmpty else { return false }
        for number in 0..<blockSlots.count {
            slotsUncounted[blockSlots[number]]._withUnsafeGuaranteedRef { finishVoice($0, number, frames: frames, left: left, right: right) }
        }
        return true
    }

    /// Real-time safe. Block voice `number` of `finishBlock`: rendered over the block (or straight
    /// into the output), its inserts run, mixed.
    @inline(__always)
    private mutating func finishVoice(_ slot: VoiceSlot, _ number: Int, frames: Int, left: UnsafeMutablePointer<Float>,
                                      right: UnsafeMutablePointer<Float>) {
        if !blockMixed, renderDirect(slot, blockSlots[number], into: left, right, frames: frames) {
            blockMixed = true
            return
        }
        let (ownLeft, ownRight) = blockBus(number)
        // A block voice overwrites its bus (`BlockVoice`); any other voice's renders added
        // into it over the block, so it is cleared for the next once mixed.
        let accumulated = slot.blockVoice == nil
        defer {
            if accumulated {
                ownLeft.update(repeating: 0, count: frames)
                ownRight.update(repeating: 0, count: frames)
            }
        }
        if slot.silenced { return }
        slot.blockVoice?.renderBlock(left: ownLeft, right: ownRight, frames: frames)
        slot.inserts?.process(left: ownLeft, right: ownRight, frames: frames)
        mix(slot, blockSlots[number], ownLeft, ownRight, into: left, right, at: 0, frames: frames, target: ActiveVoices.target(slot))
        blockMixed = true
    }

    /// Real-time safe. The engine's one voice, a block voice (`RealtimeEngine.playsQuietPeriods`),
    /// in a period with nothing due: straight into the output (`renderDirect`) with no sub-block
    /// pass. False when it does not qualify now (nothing was done).
    mutating func renderSoleBlockVoice(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) -> Bool {
        renderDirect(slots[blockSlots[0]], blockSlots[0], into: left, right, frames: frames)
    }

    /// Real-time safe. A block voice with no inserts, no output of its own and steady gains, into
    /// a block output that still holds zeros: it overwrites the output and its gains apply there,
    /// which is what its bus would have added (0 + x·g), without the bus — a period of one
    /// hosted instrument touches the output's memory only, as a bare host does. False when the
    /// voice does not qualify (nothing was done).
    @inline(__always)
    private func renderDirect(_ slot: VoiceSlot, _ index: Int, into left: UnsafeMutablePointer<Float>,
                              _ right: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
        guard let blockVoice = slot.blockVoice, slot.inserts == nil, !slot.silenced,
              !fillsOutputs || outputIndex[index] < 0 else { return false }
        let target = ActiveVoices.target(slot)
        guard slot.appliedLeft == target.left, slot.appliedRight == target.right else { return false }
        blockVoice.renderBlock(left: left, right: right, frames: frames)
        if target.left != 1 { VectorMath.scale(left, by: target.left, count: frames) }
        if target.right != 1 { VectorMath.scale(right, by: target.right, count: frames) }
        return true
    }

    /// Real-time safe.
    @inline(__always)
    private func blockBus(_ number: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        let base = blockBuses.pointer + number * 2 * maxFrames
        return (base, base + maxFrames)
    }

    /// Real-time safe. Input voices run once per block: their output depends on the input only.
    /// False when none ran (the output is as it was).
    @discardableResult
    mutating func processInput(frames: Int, inputLeft: UnsafePointer<Float>, inputRight: UnsafePointer<Float>,
                      left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) -> Bool {
        var ran = false
        for number in 0..<inputSlots.count {
            let index = inputSlots[number]
            let slot = slots[index]
            guard let inputVoice = slot.inputVoice, !slot.silenced else { continue }
            ran = true
            let (busLeft, busRight) = busBuffers()
            busLeft.update(repeating: 0, count: frames)
            busRight.update(repeating: 0, count: frames)
            inputVoice.process(inputLeft: inputLeft, inputRight: inputRight, left: busLeft, right: busRight, frames: frames)
            if let inserts = slot.inserts { inserts.process(left: busLeft, right: busRight, frames: frames) }
            // A disabled input voice fades out rather than stopping short.
            mix(slot, index, busLeft, busRight, into: left, right, at: 0, frames: frames,
                target: slot.enabled ? ActiveVoices.target(slot) : (0, 0))
        }
        return ran
    }

    /// Real-time safe.
    @inline(__always)
    private func busBuffers() -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        (bus.pointer, bus.pointer + maxFrames)
    }

    /// Real-time safe. Applies the slot's gains to its bus and adds the bus into the output (and
    /// into its own output at `offset` into the chunk, when it has one), slewing the applied gains
    /// toward `target` so that a change never jumps.
    @inline(__always)
    private func mix(_ slot: VoiceSlot, _ index: Int, _ busLeft: UnsafeMutablePointer<Float>, _ busRight: UnsafeMutablePointer<Float>,
                     into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, at offset: Int,
                     frames: Int, target: (left: Float, right: Float)) {
        var gainLeft = slot.appliedLeft, gainRight = slot.appliedRight
        let own = fillsOutputs ? Int(outputIndex[index]) : -1
        if gainLeft == target.left && gainRight == target.right {
            VectorMath.scaleAndAdd(busLeft, gainLeft, into: left, count: frames)
            VectorMath.scaleAndAdd(busRight, gainRight, into: right, count: frames)
            addToOutput(own, busLeft, busRight, at: offset, frames: frames)
            return
        }
        // Sample by sample while the gains move; once both rest on their targets (a modulated
        // gain's small step takes a few frames), the rest as the steady path above — the same
        // products and sums, so the same samples.
        let slew = gainSlewPerFrame
        var frame = 0
        while frame < frames && (gainLeft != target.left || gainRight != target.right) {
            gainLeft += min(max(target.left - gainLeft, -slew), slew)
            gainRight += min(max(target.right - gainRight, -slew), slew)
            let scaledLeft = busLeft[frame] * gainLeft, scaledRight = busRight[frame] * gainRight
            busLeft[frame] = scaledLeft
            busRight[frame] = scaledRight
            left[frame] += scaledLeft
            right[frame] += scaledRight
            frame += 1
        }
        if frame < frames {
            VectorMath.scaleAndAdd(busLeft + frame, gainLeft, into: left + frame, count: frames - frame)
            VectorMath.scaleAndAdd(busRight + frame, gainRight, into: right + frame, count: frames - frame)
        }
        slot.appliedLeft = gainLeft
        slot.appliedRight = gainRight
        addToOutput(own, busLeft, busRight, at: offset, frames: frames)
    }

    /// Real-time safe. After `mix`, the bus holds the gained signal: output `own` (if ≥ 0) gets
    /// exactly what the mix got, at `offset` into the chunk.
    @inline(__always)
    private func addToOutput(_ own: Int, _ busLeft: UnsafeMutablePointer<Float>, _ busRight: UnsafeMutablePointer<Float>,
                             at offset: Int, frames: Int) {
        guard own >= 0 else { return }
        let (outLeft, outRight) = output(own)
        VectorMath.scaleAndAdd(busLeft, 1, into: outLeft + outputOffset + offset, count: frames)
        VectorMath.scaleAndAdd(busRight, 1, into: outRight + outputOffset + offset, count: frames)
    }
}
