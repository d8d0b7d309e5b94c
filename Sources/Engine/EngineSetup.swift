import Foundation
import Voices
import Realtime
import Plugins

/// Everything an engine is made of, complete before the engine exists: the voices with their
/// inserts, the performers' hearts, the master, what MIDI and the regions play — and the
/// engine's wiring to the world: the rings it drains and reports into, its outputs, its part in
/// the shared grid. `EngineGraph` builds the musical part from a preset, a run adds the wiring,
/// and `RealtimeEngine(setup)` takes it whole: nothing is configurable afterwards. What must
/// change while it plays goes through the rings. Before activation.
@dynamicMemberLookup
public struct EngineSetup {
    public let sampleRate: Int
    /// The largest block rendered at once; longer periods are processed in chunks of it.
    public let maxFrames: Int
    let slots: ContiguousArray<VoiceSlot>
    /// LV2 effects on the whole mix, before the master stage.
    let masterInserts: InsertChain?
    /// What other threads hold instead of the engine: counters, published values, the
    /// control-thread side of snapshots and plugins. Made with the setup, so inputs built
    /// before the engine (their clocks, their insert routes) can hold it.
    public let handle: EngineHandle

    /// The master gain and limiter.
    var master = MasterStage.Settings()
    /// Seconds a dropout's fade (and the return) takes (preset `dropout.fade_seconds`).
    public var heartFadeSeconds: Float = 1
    /// The preset's modulations (as many as the handle publishes), the names of the signals they
    /// read (`/signal/NAME`, by index), and the seconds of intervals each heart's variability covers.
    public var modulations: [Modulation] = [] {
        didSet { precondition(modulations.count == handle.modulationReadings.count, "as many modulations as the setup was made for") }
    }
    public var signalNames: [String] = []
    public var hrvWindowSeconds: Double = 30
    /// What MIDI notes and controllers on `midi_in` play.
    package var midi = MIDIInputMap.Mappings()
    /// The regions, the skipped-beat region and the voices that announce modes.
    package var regionTargets: [RegionTarget] = []
    var skipRegion: Int32?
    var modeVoices: [PerformanceMode: Int32] = [:]

    /// The engine's wiring to the world, which a run adds (`setup.sources`, `setup.outputs` … read
    /// and write it directly): one value, so an engine rebuilt at a new rate takes all of it.
    public var wiring = Wiring()

    /// `performers` hearts of their own (voices follow the one their slot names), and the
    /// ensemble's after them when `ensemble` says how it takes its tempo. `rebuilding`: the
    /// handle of a running engine this one will replace (the same preset at the server's new
    /// rate); other threads keep holding it, and it takes this engine's voices once it runs
    /// (`EngineHandle.adopt`).
    package init(sampleRate: Int, maxFrames: Int, slots: [VoiceSlot], performers: Int = 1, ensemble: EnsembleTempo? = nil,
                 masterInserts: InsertChain? = nil, regionNames: [String] = [], modulations: Int = 0, rebuilding: EngineHandle? = nil) {
        precondition(maxFrames > 0)
        precondition((1...Int(UInt8.max) - 1).contains(performers))
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        self.slots = ContiguousArray(slots)
        self.masterInserts = masterInserts
        if let rebuilding {
            precondition(rebuilding.voiceNames == slots.map(\.name) && rebuilding.performerCount == performers
                         && rebuilding.regionNames == regionNames && rebuilding.maxFrames == maxFrames
                         && rebuilding.modulationReadings.count == modulations, "the same preset")
            handle = rebuilding
            handle.retireReplacedInstances(of: VoiceGraph(slots: self.slots, masterInserts: masterInserts))
        } else {
            handle = EngineHandle(sampleRate: sampleRate, maxFrames: maxFrames, slots: self.slots, masterInserts: masterInserts,
                                  regionNames: regionNames, performers: performers, ensemble: ensemble, modulations: modulations)
        }
    }

    /// What a run adds to the musical part: the rings, the live picture, the outputs, the grid
    /// role. A rebuilt engine takes the running one's whole.
    public struct Wiring {
        /// Rings the process thread drains every period, in this order.
        public var sources: [SPSCRing<ControlMessage>] = []
        /// Receives a report for every fired voice (the events log, the live page).
        public var firedReports: SPSCRing<FiredVoice>?
        /// Receives every applied control message with its frame (`run --record-session`).
        public var appliedReports: SPSCRing<ControlMessage>?
        /// Receives heartbeats, region hits and mode changes with their frames (a live picture).
        public var observations: SPSCRing<EngineObservation>?
        /// Whether fired voices and observations are wanted now, and whose doorbell rings for them
        /// (nil: always reported, as offline).
        public var reportListeners: ReportListeners?
        /// The settings a live picture asks to see.
        public var view: EngineView?
        /// The buses and voice MIDI ports besides the master (stems, per-voice ports).
        public var outputs = OutputLayout.masterOnly
        /// `run --timebase`: each beat of the grid heart goes out on `grid_out`.
        public var sendsGrid = false
        /// `run --follow-transport`: the grid heart's tempo comes from the JACK transport, its beats
        /// from `grid_in` once a grid beat has arrived; tempo and beat messages for it are counted
        /// and ignored (the performers' own hearts still follow their own).
        public var followsGrid = false
        /// `run --midi-clock`: 24 clocks a beat of the grid heart, and the transport's changes, on `clock_out`.
        public var sendsMIDIClock = false
        /// Beats a bar in the hosted plugins' time (`time:Position`): Link's quantum with `--link`.
        public var beatsPerBar = 4.0

        public init() {}
    }

    /// A field of the wiring, as if it were the setup's own.
    public subscript<Value>(dynamicMember field: WritableKeyPath<Wiring, Value>) -> Value {
        get { wiring[keyPath: field] }
        set { wiring[keyPath: field] = newValue }
    }

    public var voiceNames: [String] { handle.voiceNames }
    public var regionNames: [String] { handle.regionNames }

    /// The master gain (dB) and, with `ceilingDB`, the limiter.
    public mutating func setMaster(gainDB: Double, ceilingDB: Double?, releaseMS: Double = 50) {
        master = MasterStage.Settings(gain: Float(pow(10, gainDB / 20)), ceiling: ceilingDB.map { Float(pow(10, $0 / 20)) },
                                      releaseSeconds: Float(releaseMS / 1000))
    }

    /// The Tambour regions' voices and modes.
    package mutating func setPerformance(targets: [RegionTarget], skipRegion: Int32?, modeVoices: [PerformanceMode: Int32]) {
        regionTargets = targets
        self.skipRegion = skipRegion
        self.modeVoices = modeVoices
    }
}
