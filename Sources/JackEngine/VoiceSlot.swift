import Control
import Voices

/// One voice in the engine's graph with its mixer settings. Built off the real-time thread;
/// the process thread changes only the settings, through control messages.
final class VoiceSlot {
    let name: String
    let voice: any Voice
    var enabled: Bool
    /// Linear gain and balance (−1 left … +1 right; centre leaves both channels at unity).
    var gain: Float
    var pan: Float
    var rate: BeatRate
    /// Fired by the heartbeat clock and explicit beats; otherwise only by triggers.
    let followsHeart: Bool
    /// Excluded from the mix and from firing (`render --solo` of another voice).
    let silenced: Bool

    init(name: String, voice: any Voice, enabled: Bool, gain: Float, pan: Float, rate: BeatRate,
         followsHeart: Bool, silenced: Bool) {
        self.name = name
        self.voice = voice
        self.enabled = enabled
        self.gain = gain
        self.pan = pan
        self.rate = rate
        self.followsHeart = followsHeart
        self.silenced = silenced
    }

    /// Real-time safe. Channel gains for the balance law.
    @inline(__always)
    var channelGains: (left: Float, right: Float) {
        (gain * min(1, 1 - pan), gain * min(1, 1 + pan))
    }

    static let gainRange: ClosedRange<Float> = 0...4
    static let panRange: ClosedRange<Float> = -1...1
}
