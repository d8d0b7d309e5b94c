import OSC
import Inputs
import Realtime
import Foundation
import Engine
import JackBackend
import Sensors
import LSL

/// What `/pulse/status` (and so `pulsejack status`) reports beside the OSC input's own counters.
public final class LiveStatus: Sendable {
    private let handle: EngineHandle
    private let client: JackClient
    /// The recording's take being written (a new one after each sample-rate change).
    private let take: LockedBox<OutputRecorder?>
    private let nsm: NSMClient?
    /// The preset's performers (empty: one unnamed heart).
    private let performers: [String]

    /// Whether this engine leads the shared grid (`--timebase`) or follows it (`--follow-transport`).
    public enum GridRole: Sendable { case none, leading, following }
    private let cycles: CycleWatch?
    private let grid: GridRole
    /// Where the grid heart's tempo comes from (`tempo_source`): heart, transport or link.
    private let tempoSource: String
    /// The ports per voice or group, and per voice MIDI.
    private let outputs: OutputLayout
    /// Every heart source's dropouts.
    private let hearts: HeartWatch?
    /// The run's input sources: each shows its own fields (the sensors their states).
    private let sources: [any InputSource]
    /// Every EEG source's band powers and moods.
    private let moods: MoodWatch?
    /// The preset's modulations by name ("heart.bpm → voice.pad.gain"), in order.
    let modulations: [String]
    /// The LSL outlets (`--lsl`).
    private let outlets: LSLOutput?

    init(handle: EngineHandle, client: JackClient, take: LockedBox<OutputRecorder?> = LockedBox(nil), nsm: NSMClient?, performers: [String] = [],
         cycles: CycleWatch? = nil, grid: GridRole = .none, tempoSource: String = "heart", outputs: OutputLayout = .masterOnly, hearts: HeartWatch? = nil,
         moods: MoodWatch? = nil, sources: [any InputSource] = [], modulations: [String] = [], outlets: LSLOutput? = nil) {
        self.moods = moods
        self.outlets = outlets
        self.modulations = modulations
        self.hearts = hearts
        self.sources = sources
        self.performers = performers
        self.outputs = outputs
        self.cycles = cycles
        self.grid = grid
        self.tempoSource = tempoSource
        self.handle = handle
        self.client = client
        self.take = take
        self.nsm = nsm
    }

    /// How a value per performer is keyed: unsuffixed for the first performer (or the one heart),
    /// then `_<name>` for each named performer.
    private var performerSuffixes: [(suffix: String, performer: Int)] {
        [("", 0)] + performers.enumerated().map { ("_" + $1, $0) }
    }

    /// The EEG band powers as they last came, from OSC or a headband: `band_alpha` … for the
    /// first performer, `band_alpha_<name>` … per named performer (absent until one came).
    func bandValues() -> [(String, StatusValue)] {
        guard let moods else { return [] }
        var values: [(String, StatusValue)] = []
        for (suffix, performer) in performerSuffixes {
            let latest = moods.latest(of: performer)
            values += EEGBand.allCases.compactMap { band in latest[band].map { ("band_" + band.name + suffix, .float($0)) } }
        }
        return values
    }

    /// Each heart's variability and breathing once known: `rmssd_ms`, `sdnn_ms`, `breath_rate` for
    /// the first performer, `rmssd_ms_<name>` … per named performer.
    func variabilityValues() -> [(String, StatusValue)] {
        var values: [(String, StatusValue)] = []
        for (suffix, performer) in performerSuffixes {
            let reading = handle.variability.reading(performer)
            if let rmssd = reading.rmssd { values.append(("rmssd_ms" + suffix, .float(rmssd))) }
            if let sdnn = reading.sdnn { values.append(("sdnn_ms" + suffix, .float(sdnn))) }
            if let breaths = reading.breathRate { values.append(("breath_rate" + suffix, .float(breaths))) }
        }
        return values
    }

    /// Each modulation (from 1, as `/modulation/N/enable` counts): what it maps, its source's and
    /// destination's values now (absent until its source has one), whether it is on.
    func modulationValues() -> [(String, StatusValue)] {
        modulations.enumerated().flatMap { index, name -> [(String, StatusValue)] in
            let reading = handle.modulationReadings.reading(index), key = "modulation_\(index + 1)"
            var values: [(String, StatusValue)] = [(key, .text(name)), (key + "_on", .int(reading.enabled ? 1 : 0))]
            if !reading.source.isNaN { values.append((key + "_source", .float(Double(reading.source)))) }
            if !reading.destination.isNaN { values.append((key + "_value", .float(Double(reading.destination)))) }
            return values
        }
    }

    /// Each hosted plugin's guard, by its place ("plugin_piano.insert1_state"): playing or why it
    /// is out, the non-finite samples it made (replaced by silence), its time per period
    /// (median, 99th percentile, longest, µs) and overruns, its restarts; and all restarts.
    func pluginValues() -> [(String, StatusValue)] {
        let health = handle.pluginHealth()
        guard !health.isEmpty else { return [] }
        var values: [(String, StatusValue)] = [("plugin_restarts", .int(health.reduce(0) { $0 + $1.restarts }))]
        for plugin in health {
            let prefix = "plugin_\(plugin.place)_"
            values += [(prefix + "state", .text(plugin.state)), (prefix + "nonfinite", .int(plugin.nonFiniteSamples)),
                       (prefix + "overruns", .int(plugin.overruns)), (prefix + "restarts", .int(plugin.restarts))]
            if let median = plugin.medianMicroseconds, let p99 = plugin.p99Microseconds, let longest = plugin.maxMicroseconds {
                values += [(prefix + "median_us", .float(median)), (prefix + "p99_us", .float(p99)), (prefix + "max_us", .float(longest))]
            }
        }
        return values
    }

    /// Control thread.
    public func values(meters: MeterBallistics.Reading?) -> [(String, StatusValue)] {
        let counts = handle.counters.snapshot()
        let connections = client.connections()
        var values: [(String, StatusValue)] = [
            ("server", .text(client.serverGone ? "gone, reconnecting" : "running")),
            ("jack", .text(client.server.product)), ("sample_rate", .int(client.sampleRate)),
            ("rate_changes", .int(client.rateChanges)), ("engine_rate", .int(handle.sampleRate)),
            ("period", .int(client.bufferSize)), ("period_changes", .int(client.periodChanges)),
            ("freewheel", .int(client.freewheeling ? 1 : 0)),
            ("metadata", .text(client.metadataAvailable ? "written" : "unavailable")),
            ("dsp_load", .float(client.dspLoad)),
            ("reconnects", .int(client.reconnects)), ("bpm", .float(handle.publishedTempo ?? 0)),
            ("dropouts", .int(hearts?.dropouts.load(ordering: .relaxed) ?? 0)),
            ("dropout", .int(hearts?.inDropout(performer: 0) == true ? 1 : 0)),
            // Heartbeat notes are sent this much early; pads, triggers and the audio input are this late.
            ("plugin_latency_frames", .int(handle.publishedLatency.load(ordering: .relaxed))),
            ("outputs", .text(outputs.mode.rawValue)), ("midi_out", .text(outputs.midi.rawValue)),
            ("output_ports", .int(outputs.audioPorts.count + outputs.midiPorts.count)),
            ("connections", .int(connections.count)),
            ("connected", .text(connections.map { "\($0.0)>\($0.1)" }.joined(separator: ", "))),
        ]
        // Every engine counter, by its description.
        values += counts.status.map { ($0, StatusValue.int($1)) }
        // Each performer's heart rate, beside the first one's `bpm`.
        for (index, name) in performers.enumerated() { values.append(("bpm_" + name, .float(handle.publishedTempo(of: index) ?? 0))) }
        if handle.ensemble != nil { values.append(("bpm_ensemble", .float(handle.publishedTempo(of: performers.count) ?? 0))) }
        values += sources.flatMap { $0.statusValues(performers: performers) } + bandValues() + pluginValues()
        values += variabilityValues() + modulationValues()
        if let outlets {
            values += outlets.status.enumerated().flatMap { index, stream in stream.fields.map { ("lsl_out_\(index)" + $0.0, $0.1) } }
        }
        if let recorder = take.withLockedValue({ $0 }) {
            values += [("recorded_frames", .int(recorder.framesQueued.load(ordering: .relaxed))),
                       ("recording_overruns", .int(recorder.overruns.load(ordering: .relaxed))), ("recording", .text(recorder.path))]
        }
        if let cycles {
            let state = cycles.state.withLockedValue { $0 }
            values += [("cycles", .text(state.stalled ? "stalled" : "running")), ("cycle_stalls", .int(state.stalls)),
                       ("last_stall_s", .float(state.lastStallSeconds))]
        }
        values.append(("tempo_source", .text(tempoSource)))
        switch grid {
        case .none: break
        case .leading: values += [("grid", .text("leading")), ("grid_last_beat_frame", .int(Int(handle.lastGridBeatFrame)))]
        case .following:
            values += [("grid", .text(handle.gridBeatsReceived == 0 ? "waiting" : "following")),
                       ("grid_beats_received", .int(handle.gridBeatsReceived)), ("grid_last_beat_frame", .int(Int(handle.lastGridBeatFrame)))]
        }
        if let nsm { values.append(("nsm_ignored", .int(nsm.strangers.load(ordering: .relaxed)))) }
        if let meters {
            values += [("peak_l_dbfs", .float(Double(meters.peakLeft))), ("rms_l_dbfs", .float(Double(meters.rmsLeft))),
                       ("peak_r_dbfs", .float(Double(meters.peakRight))), ("rms_r_dbfs", .float(Double(meters.rmsRight))),
                       ("meter_nonfinite", .int(meters.nonFiniteSamples))]
        }
        return values
    }
}
