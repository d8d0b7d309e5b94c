import Control
import Foundation
import Voices

/// Drives the same engine and scheduler without a server: period after period as fast as the
/// CPU allows, deterministic to the frame, writing 32-bit float WAV. Offline.
public final class OfflineRenderer {
    public let engine: RealtimeEngine
    public let periodFrames: Int
    private let sessionRing = SPSCRing<ControlMessage>(minimumCapacity: 1024)
    private let fired = SPSCRing<FiredVoice>(minimumCapacity: 4096)
    private var pending: [ControlMessage] = []
    private var nextPending = 0
    /// Audio input for input voices (dense convolution), at the engine's rate; silence after it ends.
    private let input: SampleBuffer?

    /// Which stems a render can write besides the master.
    public enum StemLayout {
        case none
        /// One per voice.
        case perVoice
        /// One per bus the layout names (`<group>.wav` for groups).
        case buses(OutputLayout)
    }

    public struct Summary: Sendable {
        public var frames: Int64
        public var sampleRate: Int
        public var beats: Int
        public var voicesFired: Int
        public var rejectedTempos: Int
        public var secondsTaken: Double
        public var counters: EngineCounters.Snapshot

        public var realTimeFactor: Double {
            secondsTaken > 0 ? Double(frames) / Double(sampleRate) / secondsTaken : .infinity
        }
    }

    /// The buses `render(stems:)` writes (nil: none).
    public let stemLayout: OutputLayout?

    /// Offline. `messages` are the control messages to replay, each at its absolute frame.
    /// `stems`: the buses a render can write as stems (`OutputLayout.stems`; per voice when `.perVoice`).
    public init(preset: LoadedPreset, sampleRate: Int, periodFrames: Int = 256, solo: String? = nil,
                messages: [ControlMessage], inputFile: String? = nil, stems: StemLayout = .none) throws {
        input = try inputFile.map { try SampleFile.load(path: $0, sampleRate: sampleRate) }
        precondition(periodFrames > 0)
        var setup = try EngineGraph.setup(preset: preset, sampleRate: sampleRate, maxFrames: periodFrames, solo: solo, offline: true)
        setup.firedReports = fired
        setup.sources = [sessionRing]
        switch stems {
        case .none: stemLayout = nil
        case .perVoice: stemLayout = .perVoice(setup.voiceNames)
        case .buses(let layout): stemLayout = layout
        }
        if let stemLayout { setup.outputs = stemLayout }
        engine = RealtimeEngine(setup)
        self.periodFrames = periodFrames
        pending = messages.enumerated()
            .sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }
            .map(\.element)
    }

    /// The session's entries as messages at their frames (time × rate, rounded to the nearest
    /// frame). RR intervals become the tempo they imply; a pulse wave goes through the PPG beat
    /// detector, whose beats take its place as explicit beats.
    /// Pose samples also go through the region model: a hit, at its interpolated crossing frame,
    /// for every region named in `regions` (the preset's, in index order).
    public static func messages(for session: HeartSession, sampleRate: Int, regions: [String] = [],
                                regionModel model: RegionModel = RegionModel()) -> [ControlMessage] {
        var messages: [ControlMessage] = []
        // The pulse-wave detector's rate is the session's own sample spacing.
        let ppgTimes = session.entries.compactMap { entry -> Double? in
            if case .ppg = entry.event { return entry.time } else { return nil }
        }
        let spacing = ppgTimes.count > 1 ? (ppgTimes.last! - ppgTimes.first!) / Double(ppgTimes.count - 1) : 0.01
        var sensors = SensorInterpreter(regionNames: regions, regionModel: model,
                                        ppgRate: min(10_000, max(10, 1 / max(spacing, 1e-4))))
        for entry in session.entries {
            let frame = Int64((entry.time * Double(sampleRate)).rounded())
            switch entry.event {
            case .tempo(let bpm): messages.append(ControlMessage(frame: frame, .tempo(bpm: bpm)))
            case .beat(let strength): messages.append(ControlMessage(frame: frame, .heartbeat(strength: strength)))
            case .rr(let seconds):
                // The tempo the interval implies; the clock places the beats (a source drives
                // either the clock or explicit beats, never both, or every beat would sound twice).
                messages.append(ControlMessage(frame: frame, .tempo(bpm: 60 / seconds)))
            case .ppg(let sample):
                if sensors.pulseWave(sample) { messages.append(ControlMessage(frame: frame, .heartbeat(strength: 1))) }
            case .pose(let lx, let ly, let rx, let ry):
                messages.append(ControlMessage(frame: frame, .pose(leftX: lx, leftY: ly, rightX: rx, rightY: ry)))
                for hit in sensors.pose(frame: frame, leftX: lx, leftY: ly, rightX: rx, rightY: ry) {
                    messages.append(ControlMessage(frame: hit.frame, .regionHit(region: hit.region, velocity: 1)))
                }
            case .bands(let alpha, let beta, let delta, let theta, let gamma):
                for (band, value) in zip(EEGBand.allCases, [alpha, beta, delta, theta, gamma]) {
                    messages.append(ControlMessage(frame: frame, .bandPower(band, value)))
                }
            }
        }
        return messages
    }

    /// Offline. Renders `frames` frames to `outPath`; `onFired` sees every fired voice in order.
    /// `onPeriod` sees each period's output (the meters plot). `shouldStop`, asked before each
    /// period, ends the render early: the file is closed, valid, holding what was rendered.
    /// `stems`: one WAV per bus of the renderer's `stemLayout` in this folder (`<voice>.wav` or
    /// `<group>.wav`, each voice after its gain, pan and inserts, before the master's inserts and
    /// stage) beside `master.wav`, a copy of `outPath`.
    public func render(frames total: Int64, to outPath: String, stems: String? = nil,
                       onFired: ((FiredVoice) -> Void)? = nil,
                       onPeriod: ((UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Void)? = nil,
                       progress: ((Double) -> Void)? = nil, shouldStop: (() -> Bool)? = nil) throws -> Summary {
        let writer = try WavWriter(path: outPath, sampleRate: engine.sampleRate)
        defer { writer.close() }
        var stemWriters: [WavWriter] = []
        defer { for stem in stemWriters { stem.close() } }
        if let stems {
            guard let layout = stemLayout else { preconditionFailure("stems from a renderer made with a stem layout") }
            try FileManager.default.createDirectory(atPath: stems, withIntermediateDirectories: true)
            stemWriters = try (layout.buses + ["master"]).map { try WavWriter(path: stems + "/" + $0 + ".wav", sampleRate: engine.sampleRate) }
        }
        // Output, then input, left and right, a period each.
        let buffers = FixedBuffer<Float>(capacity: 4 * periodFrames, repeating: 0)
        let left = buffers.pointer, right = buffers.pointer + periodFrames
        let inputLeft = buffers.pointer + 2 * periodFrames, inputRight = buffers.pointer + 3 * periodFrames
        let started = Date()
        var done: Int64 = 0
        var lastProgress = -1
        let producer = sessionRing.producer
        let reports = fired.consumer
        engine.warmUp()
        while done < total {
            if let shouldStop, shouldStop() { break }
            let frames = Int(min(Int64(periodFrames), total - done))
            // Feed what is due before this period ends, as far as the ring holds it.
            while nextPending < pending.count, pending[nextPending].frame < done + Int64(frames),
                  sessionRing.count < sessionRing.capacity {
                producer.push(pending[nextPending])
                nextPending += 1
            }
            if let input {
                for frame in 0..<frames {
                    let at = Int(done) + frame
                    inputLeft[frame] = at < input.frameCount ? input.left[at] : 0
                    inputRight[frame] = at < input.frameCount ? input.right[at] : 0
                }
            }
            engine.process(frames: frames, left: left, right: right,
                           inputLeft: input == nil ? nil : UnsafePointer(inputLeft),
                           inputRight: input == nil ? nil : UnsafePointer(inputRight))
            while let report = reports.pop() { onFired?(report) }
            try writer.write(left: left, right: right, frames: frames)
            if !stemWriters.isEmpty {
                for number in 0..<stemWriters.count - 1 {
                    let (stemLeft, stemRight) = engine.output(number)
                    try stemWriters[number].write(left: stemLeft, right: stemRight, frames: frames)
                }
                try stemWriters[stemWriters.count - 1].write(left: left, right: right, frames: frames)
            }
            onPeriod?(left, right, frames)
            done += Int64(frames)
            if let progress {
                let percent = Int(100 * done / max(total, 1))
                if percent != lastProgress { lastProgress = percent; progress(Double(done) / Double(total)) }
            }
        }
        try writer.flush()
        for stem in stemWriters { try stem.flush() }
        let counters = engine.handle.counters.snapshot()
        return Summary(frames: done, sampleRate: engine.sampleRate, beats: counters.beats,
                       voicesFired: counters.voicesFired, rejectedTempos: counters.rejectedTempos,
                       secondsTaken: Date().timeIntervalSince(started), counters: counters)
    }
}
