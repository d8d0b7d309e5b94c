import Voices
import Realtime

/// The voices that may sound now: one bit per voice, set when it fires and cleared when it
/// reports silence (`Voice.isSounding`), so silent voices cost nothing. The firing wakes voices,
/// the mixer renders the set; both hold this one table, allocated before activation.
package final class ActiveVoices {
    let slots: ContiguousArray<VoiceSlot>
    /// (Written `a[i] = a[i] | bit`: Swift 6.3.1 built with --sanitize=thread crashes on `|=`
    /// through this subscript, "Invalid bitcast".)
    private let bits: FixedBuffer<UInt64>

    /// Every voice starts in the set; the first render finds out which are silent.
    init(slots: ContiguousArray<VoiceSlot>) {
        self.slots = slots
        bits = FixedBuffer(capacity: (slots.count + 63) / 64, repeating: 0)
        for index in 0..<slots.count { set(index, true) }
    }

    var wordCount: Int { bits.capacity }

    /// Real-time safe. The words themselves, for a loop over every voice (the mixer's render):
    /// one pointer, no call through this object per voice.
    var words: UnsafeMutablePointer<UInt64> { bits.pointer }

    /// Real-time safe. Voices `64 × word` … `64 × word + 63`, one bit each.
    @inline(__always)
    func word(_ word: Int) -> UInt64 { bits[word] }

    /// Real-time safe.
    @inline(__always)
    func set(_ index: Int, _ on: Bool) {
        let word = index >> 6
        bits[word] = on ? bits[word] | Self.bit(index) : bits[word] & ~Self.bit(index)
    }

    /// Real-time safe. Voice `index` fired: it renders from now on until it is silent again. A
    /// voice woken from silence starts at its target gains (nothing of it was audible to slew).
    func wake(_ index: Int) {
        guard bits[index >> 6] & Self.bit(index) == 0 else { return }
        set(index, true)
        let slot = slots[index]
        let target = Self.target(slot)
        slot.appliedLeft = target.left
        slot.appliedRight = target.right
    }

    /// Real-time safe. The slot's channel gains, faded with its performer's heart during a dropout.
    @inline(__always)
    static func target(_ slot: VoiceSlot) -> (left: Float, right: Float) {
        let gains = slot.channelGains
        guard slot.followsHeart && slot.heartLevel < 1 else { return gains }
        return (gains.left * slot.heartLevel, gains.right * slot.heartLevel)
    }

    @inline(__always)
    private static func bit(_ index: Int) -> UInt64 { UInt64(1) << UInt64(index & 63) }
}
