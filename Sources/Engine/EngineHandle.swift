import Atomics
import Voices
import Foundation
import Realtime
import Plugins
import Synchronization

/// The engine as other threads hold it: the counters, the values the process thread publishes
/// (its period's start, each heart's tempo, the path latency, the shared grid's beats), the
/// voices' settings copied on request, and the hosted plugins' control-thread side (their logs,
/// saves, state loads and insert routes). Made with the `EngineSetup`, before the engine, so an
/// input's clock and routes can be built first; the engine writes what it publishes here.
// @unchecked: every stored property is a `let`. What changes behind them after activation is
// atomic (counters, published values, the grid's counters, the rate), a ring's end (retired
// clips), behind `VoiceStateSnapshot`'s handshake, or in `graph`'s locked box; the voices and
// inserts there are the process thread's objects, which this side reads only through their own
// containers (`InsertStage.published`, plugin logs' rings, the snapshot's copies) or while the
// process thread does not run them.
public final class EngineHandle: @unchecked Sendable {
    /// The rate of the engine that runs now (any thread): a rebuilt engine's after the server
    /// changed its rate (`adopt`).
    public var sampleRate: Int { rate.load(ordering: .relaxed) }
    private let rate: Atomic<Int>
    public let maxFrames: Int
    public let counters = EngineCounters()
    /// Voice names, by index: what control messages and fired reports refer to.
    public let voiceNames: [String]
    /// Region names, by index (OSC `/region/<name>`).
    public let regionNames: [String]
    /// How many performers; the ensemble's heart, when there is one, comes after them.
    public let performerCount: Int
    /// The ensemble heart's rule (nil: no ensemble heart).
    public let ensemble: EnsembleTempo?
    /// Counts changes a session save would keep (voice settings); a session manager's dirty flag.
    public let settingChanges = Atomic<Int>(0)
    /// Whether a change to `settingChanges` rings the control bell (a session manager follows it).
    public let ringsOnSettingChanges = Atomic<Bool>(false)
    /// The engine frame at the start of the current period (`JackFrameClock`).
    public let publishedPeriodStart = Atomic<Int64>(0)
    /// The largest path latency in frames (status, JACK's latency callback).
    public let publishedLatency = Atomic<Int>(0)
    /// A hosted plugin's share of the period, in percent: a period it takes longer in is its
    /// overrun (`PluginGuard`). 0: no limit (offline, where time is not the period's). A live
    /// run sets it (`--plugin-share`).
    public let pluginSharePercent = Atomic<Int>(0)
    /// The plugin trips `rescuePlugins` has already said and acted on (each once).
    let pluginNotes = LockedBox<Set<String>>([])
    /// The bits of each heart's last BPM applied, 0 until one is.
    let publishedBPMs: ContiguousArray<ManagedAtomic<UInt64>>
    /// Each modulation's source and destination values, and each heart's variability.
    public let modulationReadings: ModulationReadings
    public let variability: VariabilityReadings
    /// The counters of the beat grid shared with other engines.
    let grid = GridCounters()
    /// Objects the process thread no longer needs, on their way here to be released
    /// (`ClipSwapper` drains it).
    public let retiredClips = SPSCRing<RetainedObject>(minimumCapacity: 256)
    /// What the control thread sleeps on: the process thread rings it once at the end of a period
    /// that made it work (an object retired, a plugin benched, the path latency changed, a
    /// session-log report; `RealtimeEngine.noteControlWork`), other threads when they make some.
    public let controlBell = Doorbell()
    let stateSnapshot: VoiceStateSnapshot
    /// The voices and master inserts of the engine that runs now. Control thread: the process
    /// thread uses its engine's own.
    private let graph: LockedBox<VoiceGraph>
    var current: VoiceGraph { graph.withLockedValue { $0 } }

    init(sampleRate: Int, maxFrames: Int, slots: ContiguousArray<VoiceSlot>, masterInserts: InsertChain?, regionNames: [String],
         performers: Int, ensemble: EnsembleTempo?, modulations: Int = 0) {
        rate = Atomic(sampleRate)
        self.maxFrames = maxFrames
        graph = LockedBox(VoiceGraph(slots: slots, masterInserts: masterInserts))
        self.regionNames = regionNames
        voiceNames = slots.map(\.name)
        performerCount = performers
        self.ensemble = ensemble
        publishedBPMs = ContiguousArray((0..<performers + (ensemble == nil ? 0 : 1)).map { _ in ManagedAtomic<UInt64>(0) })
        modulationReadings = ModulationReadings(count: modulations)
        variability = VariabilityReadings(hearts: performers + (ensemble == nil ? 0 : 1))
        stateSnapshot = VoiceStateSnapshot(count: slots.count)
        retireReplacedInstances(of: VoiceGraph(slots: slots, masterInserts: masterInserts))
    }

    /// Every insert chain and instrument of `graph` hands replaced instances back through the retired ring.
    func retireReplacedInstances(of graph: VoiceGraph) {
        let retired = retiredClips.producer, bell = controlBell
        for index in -1..<graph.slots.count {
            graph.insertChain(InsertAddress(chain: Int32(index), stage: 0, port: 0))?.retire = {
                retired.push(RetainedObject(handingOver: $0))
                bell.ring()  // a swap, rare: at once rather than through the engine's period-end note
            }
            if index >= 0 {
                graph.slots[index].instrumentVoice?.retire = {
                    retired.push(RetainedObject(handingOver: $0))
                    bell.ring()
                }
            }
        }
    }

    /// Control thread, once the process thread runs `engine` (an engine rebuilt at the server's
    /// new rate with this handle): its voices, inserts and rate are what this side sees from now.
    public func adopt(_ engine: RealtimeEngine) {
        precondition(engine.handle === self, "an engine made with this handle")
        graph.withLockedValue { $0 = VoiceGraph(slots: engine.slots, masterInserts: engine.masterInserts) }
        rate.store(engine.sampleRate, ordering: .relaxed)
    }

    /// Real-time safe. Any thread reads it: the tempo the first performer's heart plays at, nil until it has one.
    public var publishedTempo: Double? { publishedTempo(of: 0) }

    /// Real-time safe. Any thread reads it: heart `index`'s tempo (a performer's, or the ensemble's after them), nil until it has one.
    public func publishedTempo(of index: Int) -> Double? {
        let bits = publishedBPMs[index].load(ordering: .relaxed)
        return bits == 0 ? nil : Double(bitPattern: bits)
    }

    /// Real-time safe. Any thread reads it: grid beats received on `grid_in`, and the frame of the last grid beat (−1: none).
    public var gridBeatsReceived: Int { grid.received.load(ordering: .relaxed) }
    public var lastGridBeatFrame: Int64 { grid.lastBeatFrame.load(ordering: .relaxed) }

    /// Control thread. Index of the voice named `name`.
    public func voiceIndex(named name: String) -> Int? { voiceNames.firstIndex(of: name) }

    /// Control thread. The track player at voice `index`, if that voice is one.
    public func trackPlayer(at index: Int) -> TrackPlayerVoice? {
        let slots = current.slots
        return index < slots.count ? slots[index].voice as? TrackPlayerVoice : nil
    }

    /// Control thread. Every voice's settings now. While the process thread runs (`live`), it
    /// takes the copy; otherwise (stopped, the server gone, or no answer within `timeout`
    /// seconds) they are read here.
    public func voiceStates(live: Bool, timeout: Double = 1) -> [String: VoiceState] {
        ProcessThread.assertOutside("asking for the voices' settings")
        if !(live && stateSnapshot.request(timeout: timeout)) {
            let graph = current  // one engine's voices and inserts, read under one lock
            stateSnapshot.copy(graph.slots, master: graph.masterInserts)
            stateSnapshot.copiedHere()
        }
        return Dictionary(uniqueKeysWithValues: zip(voiceNames, stateSnapshot.values))
    }

    /// Control thread. The chain an insert address names, in the engine that runs now.
    func insertChain(_ address: InsertAddress) -> InsertChain? {
        current.insertChain(address)
    }
}
