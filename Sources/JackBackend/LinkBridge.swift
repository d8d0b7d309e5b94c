import Atomics
import CJack
import CLink
import Engine
import Realtime

/// Ableton Link on the process thread, once a period before the engine runs: the session's
/// timeline captured (lock-free), the grid heart's tempo committed when it leads and the
/// session's differs, or the session's tempo taken when following (beyond the engine's 300 BPM: clamped
/// and counted), the start and stop of the JACK transport and of the session kept together
/// (`--link-start-stop`), and the grid heart's clock laid on the session's beat grid at the
/// period's first frame — so its beats, and the voices on them, fall on the peers' beats either
/// way. The period's time on Link's clock is JACK's DLL's, plus the output latency: Link's times
/// are when a sample is heard.
package final class LinkBridge {
    let session: LinkSession
    /// The timeline this thread captures into and commits from (made before activation).
    private let state: OpaquePointer
    private var committedBPM = 0.0
    /// The session's start-stop state and our transport's, as last seen.
    private var sessionPlaying: Bool?
    private var transportRolling: Bool?
    /// The session's tempo last taken, for counting a clamp once.
    private var followedTempo = 0.0
    private var readings: LinkReadings { session.readings }

    package init(session: LinkSession) {
        self.session = session
        state = pj_link_state_create()!
    }

    deinit { pj_link_state_destroy(state) }

    /// Real-time safe. The period whose first frame JACK's server clock puts at `cycleMicros`;
    /// `rolling`: the JACK transport's state this cycle (nil when not queried).
    package func period(_ engine: RealtimeEngine, cycleMicros: Int64, rolling: Bool?) {
        let heard = cycleMicros &+ session.clockOffset.load(ordering: .relaxed) &+ readings.latencyMicros.load(ordering: .relaxed)
        let quantum = session.settings.quantum
        pj_link_capture_audio(session.link, state)
        var commit = false
        if session.settings.follows {
            let tempo = pj_link_tempo(state)
            if tempo != followedTempo {
                followedTempo = tempo
                if !HeartbeatClock.accepts(bpm: tempo) { readings.clampedTempos.wrappingIncrement(ordering: .relaxed) }
            }
            engine.followLink(bpm: min(max(tempo, 1), 300))
        } else {
            // Committed whenever the session's differs: at the heart's changes, and when joining
            // merged us into an older session's timeline (at its tempo), or a peer moved it.
            // Link's own range is 20…999 BPM: a heart outside it is committed at its edge, once.
            let clock = engine.gridClock
            let wanted = min(max(clock.bpm, 20), 999)
            if clock.isRunning, clock.bpm != committedBPM || abs(pj_link_tempo(state) - wanted) > 0.001 {
                committedBPM = clock.bpm
                pj_link_set_tempo(state, wanted, heard)
                commit = true
            }
        }
        if session.settings.startStop, let rolling {
            var playing = pj_link_is_playing(state)
            if let was = transportRolling, was != rolling {
                // Our transport moved (a user, or the request below answered): the session follows.
                pj_link_set_is_playing(state, rolling, heard)
                playing = rolling
                commit = true
            } else if let was = sessionPlaying, was != playing, playing != rolling {
                // The session moved: the control thread moves the transport (not a call for this thread).
                readings.transportRequest.store(playing ? LinkReadings.start : LinkReadings.stop, ordering: .releasing)
            }
            sessionPlaying = playing
            transportRolling = rolling
        }
        if commit { pj_link_commit_audio(session.link, state) }
        let beat = pj_link_beat_at_time(state, heard, quantum)
        engine.alignGrid(beat: beat)
        readings.tempo.store(pj_link_tempo(state).bitPattern, ordering: .relaxed)
        readings.beat.store(beat.bitPattern, ordering: .relaxed)
    }
}

/// What the process thread's `LinkBridge` publishes, and what the control thread hands it.
public final class LinkReadings: Sendable {
    static let none = 0, start = 1, stop = 2
    /// The session's tempo and the beat at the last period's start (Double bit patterns).
    public let tempo = ManagedAtomic<UInt64>(0)
    public let beat = ManagedAtomic<UInt64>(0)
    /// Session tempos beyond the engine's range, clamped.
    public let clampedTempos = ManagedAtomic<Int>(0)
    /// Our outputs' playback latency (µs), kept by the control thread.
    let latencyMicros = ManagedAtomic<Int64>(0)
    /// The session started or stopped: the JACK transport to follow (`start`, `stop`; taken by the control thread).
    let transportRequest = ManagedAtomic<Int>(0)
    public init() {}
}
