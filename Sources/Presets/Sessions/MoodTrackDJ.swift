import Inputs
import Foundation
import Voices
import Realtime
import Engine
import SoundFiles

/// MusicMood's player: when the playing track nears its end, the next one is drawn at random among
/// the library's tracks tagged with the current mood (any track while the mood is undefined or
/// nothing matches), prepared here, and crossfaded in on the audio thread. Switching happens only
/// between tracks. Control thread.
public final class MoodTrackDJ {
    public let library: TrackLibrary
    private let handle: EngineHandle
    private let voiceIndex: Int
    private let player: TrackPlayerVoice
    private var generator: SplitMix64
    private var pending = false
    /// The track chosen last (its file name).
    public private(set) var current: String?

    public init?(handle: EngineHandle, voice name: String, library: TrackLibrary, seed: UInt64 = 1) {
        guard let index = handle.voiceIndex(named: name), let player = handle.trackPlayer(at: index) else { return nil }
        self.handle = handle
        voiceIndex = index
        self.player = player
        self.library = library
        generator = SplitMix64(seed: seed)
    }

    /// The next track for `mood`: a random one among those tagged with it, not the one playing
    /// when another exists.
    public func choose(mood: String?) -> TrackLibrary.Track? {
        var candidates = mood.map { library.matching(mood: $0) } ?? []
        if candidates.isEmpty { candidates = library.tracks }
        if candidates.count > 1 { candidates.removeAll { $0.path == current } }
        guard !candidates.isEmpty else { return nil }
        return candidates[Int(generator.next() % UInt64(candidates.count))]
    }

    /// Control thread. A few times a second: a swap message when the track is within the
    /// crossfade (plus `margin` seconds) of its end, or nil.
    public func tick(mood: String?, margin: Double = 0.5) throws -> ControlMessage? {
        let lead = Double(player.crossfadeFrames) / Double(handle.sampleRate) + margin
        // The process thread publishes what is left; the player's own fields are its alone.
        let left = player.remainingOutputFrames
        let remaining = Double(left ?? 0) / Double(handle.sampleRate)
        if pending {
            // The swap is done once the player has taken the new track.
            if remaining > lead { pending = false }
            return nil
        }
        guard left != nil, remaining <= lead, let track = choose(mood: mood) else { return nil }
        let next = TrackPlayerVoice(track: try SampleFile.load(path: track.path, sampleRate: handle.sampleRate), trackBPM: track.bpm,
                                    ratioRange: player.ratioRange)
        next.crossfadeFrames = player.crossfadeFrames
        next.prepare(sampleRate: handle.sampleRate, maxFrames: handle.maxFrames)
        pending = true
        current = track.path
        return ControlMessage(.swapClip(voice: Int32(voiceIndex), clip: RetainedObject(retaining: next)))
    }
}
