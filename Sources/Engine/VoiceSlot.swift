import Voices
import Realtime
import Plugins

/// One voice in the engine's graph with its mixer settings. Built off the real-time thread;
/// the process thread changes only the settings, through control messages.
package final class VoiceSlot {
    let name: String
    package let voice: any Voice
    /// The same voice seen as following the pulse grid, or as processing the audio input; cast
    /// once here so the process thread never casts.
    let pulseVoice: (any PulseVoice)?
    let inputVoice: (any InputVoice)?
    /// Whether it is an input voice (a flag: testing the optional above counts a reference).
    let isInput: Bool
    let clipVoice: (any ClipSwapping)?
    let tempoVoice: (any TempoFollowing)?
    let blockVoice: (any BlockVoice)?
    /// The voice, when it is an LV2 instrument.
    let instrumentVoice: LV2InstrumentVoice?
    /// Real-time safe. The hosted plugin the process thread runs, when the voice is an LV2 instrument.
    var instrument: PluginInstance? { instrumentVoice?.plugin }
    /// LV2 effects on the voice's bus (nil: none).
    let inserts: InsertChain?
    var enabled: Bool
    /// Linear gain and balance (−1 left … +1 right; centre leaves both channels at unity).
    var gain: Float
    var pan: Float
    var rate: BeatRate
    /// Velocity of the notes the heartbeat fires.
    let velocity: Float
    /// What a modulation sets instead of the gain, the pan and the velocity (NaN: none); the
    /// manual values stay, and return when the modulation lets go.
    var modulatedGain = Float.nan
    var modulatedPan = Float.nan
    var modulatedVelocity = Float.nan
    /// Firing a voice chokes the others in its group (0: none).
    let chokeGroup: Int
    /// Fired by the heartbeat clock and explicit beats; otherwise only by triggers.
    let followsHeart: Bool
    /// Excluded from the mix and from firing (`render --solo` of another voice).
    let silenced: Bool
    /// The note it sends on `midi_out` when it fires: status channel 0…15, key, length in frames.
    package var midiOut: (channel: UInt8, key: UInt8, length: Int64) = (0, 60, 4800)
    /// Whose heart it follows (an index into the preset's performers, the ensemble's after them,
    /// or −1 for a `together` voice). Set before activation.
    package var performer = 0
    /// Its performer's heart level (1, or fading toward 0 during their dropout with the preset's
    /// action "fade"): the process thread sets it each block.
    var heartLevel: Float = 1
    /// A `together` voice: the two performers and the window in frames. Set before activation.
    package var together: (first: Int, second: Int, window: Int64)?
    /// The last beat frame of each of the two that a firing of this voice used (each beat once).
    var togetherUsed: (first: Int64, second: Int64) = (-1, -1)
    /// The channel gains in effect; they slew toward `channelGains` so no change clicks.
    var appliedLeft: Float
    var appliedRight: Float

    package init(name: String, voice: any Voice, enabled: Bool, gain: Float, pan: Float, rate: BeatRate,
         followsHeart: Bool, silenced: Bool, velocity: Float = 1, chokeGroup: Int = 0, inserts: InsertChain? = nil) {
        self.name = name
        self.voice = voice
        pulseVoice = voice as? any PulseVoice
        inputVoice = voice as? any InputVoice
        isInput = inputVoice != nil
        clipVoice = voice as? any ClipSwapping
        tempoVoice = voice as? any TempoFollowing
        blockVoice = voice as? any BlockVoice
        instrumentVoice = voice as? LV2InstrumentVoice
        self.inserts = inserts
        self.enabled = enabled
        self.gain = gain
        self.pan = pan
        self.rate = rate
        self.followsHeart = followsHeart
        self.silenced = silenced
        self.velocity = velocity
        self.chokeGroup = chokeGroup
        appliedLeft = gain * min(1, 1 - pan)
        appliedRight = gain * min(1, 1 + pan)
    }

    /// Real-time safe. Channel gains for the balance law.
    @inline(__always)
    var channelGains: (left: Float, right: Float) {
        let gain = modulatedGain.isNaN ? gain : modulatedGain, pan = modulatedPan.isNaN ? pan : modulatedPan
        return (gain * min(1, 1 - pan), gain * min(1, 1 + pan))
    }

    /// Real-time safe. The velocity its heartbeat notes play at now.
    @inline(__always)
    var noteVelocity: Float { modulatedVelocity.isNaN ? velocity : modulatedVelocity }

    /// `VoiceParameterRange`'s, as the process thread compares them.
    static let gainRange = Float(VoiceParameterRange.gain.lowerBound)...Float(VoiceParameterRange.gain.upperBound)
    static let panRange = Float(VoiceParameterRange.pan.lowerBound)...Float(VoiceParameterRange.pan.upperBound)
}
