import Voices
import Realtime
import Plugins

/// Plays heart-driven voices early by their path's latency, so their sound lands on the beat.
///
/// A voice's path latency is its hosted instrument's plus its insert chain's plus the master
/// chain's (each plugin's latency port, re-read after every run). The heartbeat clock knows the
/// coming pulses, so each block looks ahead by the largest latency and schedules, for each such
/// voice, the pulse at frame P to fire at P − L; the engine then skips that voice on the pulse
/// itself. What cannot be known early — explicit beats, MIDI pads, triggers — still sounds L
/// frames late (the status says so). A tempo change inside the look-ahead moves a beat already
/// sent by at most the change over L frames; each pulse fires once (by its beat and pulse).
/// Owned by the engine by value; allocated before activation.
package struct LatencyCompensation: ~Copyable {
    struct Firing: BitwiseCopyable {
        /// When to fire (P − L, or the block's start if that has passed), and the pulse's own frame.
        var frame: Int64
        var beatFrame: Int64
        var slot: Int32
        var beat: Int64
        var pulse: Int
        var framesPerBeat: Double
    }

    /// Slots that can have latency (a hosted instrument or inserts, or any while the master has
    /// inserts), by index.
    private let latentSlots: ContiguousArray<Int>
    /// Per slot: frames early now (0: none).
    private let early: FixedBuffer<Int>
    /// Per latent slot, the pulses it fired (beat × 12 + pulse), at `key mod claimWindow`: a pulse
    /// fired early is never fired again on its own frame, whatever the latency does meanwhile.
    private let claimed: FixedBuffer<Int64>
    /// Pulses remembered per slot: more than a second's worth at 300 BPM, the look-ahead's limit.
    static let claimWindow = 256
    /// Whether each slot can have latency.
    private let latent: FixedBuffer<Bool>
    /// This block's early firings, by frame: the first `count`, from `next`.
    private let firings: FixedBuffer<Firing>
    private var count = 0
    private var next = 0
    /// The largest compensation now.
    private(set) var largest = 0

    init(slots: ContiguousArray<VoiceSlot>, masterHasInserts: Bool) {
        // The first performer's voices: the look-ahead follows that heart's clock (the others' play
        // on their pulses, their path latency late).
        latentSlots = ContiguousArray(slots.indices.filter {
            slots[$0].followsHeart && slots[$0].performer == 0
                && (masterHasInserts || slots[$0].inserts != nil || slots[$0].instrument != nil)
        })
        early = FixedBuffer(capacity: max(1, slots.count), repeating: 0)
        claimed = FixedBuffer(capacity: max(1, slots.count) * Self.claimWindow, repeating: -1)
        latent = FixedBuffer(capacity: max(1, slots.count), repeating: false)
        for index in latentSlots { latent[index] = true }
        firings = FixedBuffer(capacity: 512, repeating: Firing(frame: 0, beatFrame: 0, slot: 0, beat: 0, pulse: 0, framesPerBeat: 0))
    }

    /// Real-time safe. Frames early for slot `index` (0: it fires on its pulses as usual).
    @inline(__always)
    func compensation(_ index: Int) -> Int { early[index] }

    /// Real-time safe. Whether slot `index` can have latency: its pulses are claimed, early or on
    /// their frame, so each fires once.
    @inline(__always)
    func isLatent(_ index: Int) -> Bool { latent[index] }

    /// Real-time safe. A slot's path latency now.
    private static func latency(of slot: VoiceSlot, master: InsertChain?) -> Int {
        var frames = master?.latency ?? 0
        if let inserts = slot.inserts { frames += inserts.latency }
        if let instrument = slot.instrumentVoice { frames += instrument.latency }
        return frames
    }

    /// Real-time safe. Before a block [`start`, `end`): re-reads the latencies and lists the
    /// firings due in it. Bounded by the firings' capacity and the pulses in the look-ahead.
    mutating func plan(hearts: borrowing EngineHearts, slots: ContiguousArray<VoiceSlot>, master: InsertChain?, sampleRate: Int,
                       start: Int64, end: Int64) {
        count = 0
        next = 0
        guard !latentSlots.isEmpty else { return }
        largest = 0
        for number in 0..<latentSlots.count {
            let index = latentSlots[number]
            early[index] = Self.latency(of: slots[index], master: master)
            largest = max(largest, early[index])
        }
        // The clock is read only now: copied every period, it cost a memcpy into cold stack lines.
        guard largest > 0, hearts.heart(0).clock.isRunning else { return }
        var ahead = hearts.clock(0)
        let framesPerBeat = 60 * Double(sampleRate) / ahead.bpm
        while let frame = ahead.nextPulseFrame, frame < end + Int64(largest), count < firings.capacity {
            let position = ahead.nextPulsePosition
            for number in 0..<latentSlots.count where count < firings.capacity {
                let index = latentSlots[number]
                let lead = Int64(early[index])
                // An early frame that passed more than a block ago (the latency grew by that much
                // at once) is not piled onto this block: that pulse sounds on its own frame, late.
                guard lead > 0, frame - lead < end, frame - lead >= start - (end - start),
                      claim(index, beat: position.beat, pulse: position.pulse) else { continue }
                insert(Firing(frame: max(frame - lead, start), beatFrame: frame, slot: Int32(index), beat: position.beat,
                              pulse: position.pulse, framesPerBeat: framesPerBeat))
            }
            ahead.consumePulse()
        }
    }

    /// Real-time safe. True, once per pulse and slot: the caller fires it. A pulse the look-ahead
    /// did not fire early (its latency was 0, or grew past it, or the tempo that starts it arrived
    /// with it) is claimed on the pulse itself.
    func claim(_ index: Int, beat: Int64, pulse: Int) -> Bool {
        let key = beat * Int64(BeatRate.pulsesPerBeat) + Int64(pulse)
        let place = index * Self.claimWindow + Int(key & Int64(Self.claimWindow - 1))
        guard claimed[place] != key else { return false }
        claimed[place] = key
        return true
    }

    /// Real-time safe. In frame order (insertion: the list is short).
    private mutating func insert(_ firing: Firing) {
        var slot = count
        while slot > 0 && firings[slot - 1].frame > firing.frame {
            firings[slot] = firings[slot - 1]
            slot -= 1
        }
        firings[slot] = firing
        count += 1
    }

    /// Real-time safe. The frame of the next firing due, if any.
    var nextFrame: Int64? { next < count ? firings[next].frame : nil }

    /// Real-time safe. The next firing, consumed.
    mutating func pop() -> Firing? {
        guard next < count else { return nil }
        next += 1
        return firings[next - 1]
    }
}
