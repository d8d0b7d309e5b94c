import Inputs
import Foundation
import Voices
import Realtime
import Engine
import Presets
import SoundFiles

/// Drives the same engine and scheduler without a server: period after period as fast as the
/// CPU allows, deterministic to the frame, writing 32-bit float WAV. Offline.
public final class OfflineRenderer {
    public let engine: RealtimeEngine
    /// While a render runs: writes what its files have gathered (`RenderWatchdog`, before it exits).
    let finishStuck = LockedBox<(@Sendable () -> Void)?>(nil)
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
    /// With `midiClock`: what `clock_out` would have sent, each message at its frame — Start at
    /// the render's first frame (it plays from the top), 24 clocks a beat of the grid heart,
    /// Stop at its end.
    public private(set) var clockMessages: [(frame: Int64, message: MIDIEvent)] = []
    private let sendsMIDIClock: Bool

    /// Offline. `messages` are the control messages to replay, each at its absolute frame.
    /// `stems`: the buses a render can write as stems (`OutputLayout.stems`; per voice when `.perVoice`).
    public init(preset: LoadedPreset, sampleRate: Int, periodFrames: Int = 256, solo: String? = nil,
                messages: [ControlMessage], inputFile: String? = nil, stems: StemLayout = .none, isolatePlugins: Bool = false,
                midiClock: Bool = false) throws {
        input = try inputFile.map { try SampleFile.load(path: $0, sampleRate: sampleRate) }
        precondition(periodFrames > 0)
        var setup = try EngineGraph.setup(preset: preset, sampleRate: sampleRate, maxFrames: periodFrames, solo: solo, offline: true,
                                          isolatePlugins: isolatePlugins)
        setup.firedReports = fired
        setup.sources = [sessionRing]
        setup.sendsMIDIClock = midiClock
        sendsMIDIClock = midiClock
        switch stems {
        case .none: stemLayout = nil
        case .perVoice: stemLayout = .perVoice(setup.voiceNames)
        case .buses(let layout): stemLayout = layout
        }
        if let stemLayout { setup.outputs = stemLayout }
        engine = RealtimeEngine(setup)
        self.periodFrames = periodFrames
        pending = Self.ordered(messages)
    }

    /// Offline. Renders `frames` frames to `outPath`; `onFired` sees every fired voice in order.
    /// `onPeriod` sees each period's output (the meters plot). `shouldStop`, asked before each
    /// period, ends the render early: the file is closed, valid, holding what was rendered.
    /// Messages by frame (stable), each stretch between timeline rewinds on its own: after a
    /// rewind a take's frames start again from earlier, and its lost cycles keep their place.
    private static func ordered(_ messages: [ControlMessage]) -> [ControlMessage] {
        var ordered: [ControlMessage] = [], stretch: [ControlMessage] = []
        func flush() {
            ordered += stretch.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
            stretch.removeAll()
        }
        for message in messages {
            if case .framesSkipped(let frames) = message.event, frames < 0 {
                flush()
                ordered.append(message)
            } else {
                stretch.append(message)
            }
        }
        flush()
        return ordered
    }

    /// The lost cycle (or its taking back) next in line, if it is: a live take's timeline jump.
    private var nextJump: (frame: Int64, frames: Int)? {
        guard nextPending < pending.count, case .framesSkipped(let frames) = pending[nextPending].event else { return nil }
        return (pending[nextPending].frame, Int(frames))
    }

    /// `stems`: one WAV per bus of the renderer's `stemLayout` in this folder (`<voice>.wav` or
    /// `<group>.wav`, each voice after its gain, pan and inserts, before the master's inserts and
    /// stage) beside `master.wav`, a copy of `outPath`.
    public func render(frames total: Int64, to outPath: String, stems: String? = nil,
                       onFired: ((FiredVoice) -> Void)? = nil,
                       onPeriod: ((UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Void)? = nil,
                       progress: ((Double) -> Void)? = nil, shouldStop: (() -> Bool)? = nil,
                       say: ((String) -> Void)? = nil) throws -> Summary {
        let files = try openFiles(out: outPath, stems: stems, onPeriod: onPeriod)
        defer { files.withLockedValue { $0.close() } }
        finishStuck.withLockedValue { $0 = { try? files.withLockedValue { try $0.flush() } } }
        defer { finishStuck.withLockedValue { $0 = nil } }
        // Output, then input, left and right, a period each.
        let buffers = FixedBuffer<Float>(capacity: 4 * periodFrames, repeating: 0)
        let left = buffers.pointer, right = buffers.pointer + periodFrames
        let inputLeft = buffers.pointer + 2 * periodFrames, inputRight = buffers.pointer + 3 * periodFrames
        let started = MonotonicClock.seconds
        var done: Int64 = 0
        var lastProgress = -1
        let reports = fired.consumer
        engine.warmUp()
        if sendsMIDIClock { engine.midiClockTransport(rolling: true, wasRolling: false, sixteenths: 0) }
        // Every 100 ms of audio, as often as a live run's control thread watches an isolated
        // plugin: a benched plugin named and renewed (by frames, so the render stays deterministic).
        let rescueEvery = Int64(engine.sampleRate / 10)
        while done < total {
            if let shouldStop, shouldStop() { break }
            if let jump = nextJump, jump.frame <= done {
                nextPending += 1
                try replay(lostCycle: jump.frames, files: files, silence: left, right)
                done += Int64(jump.frames)
                continue
            }
            var frames = Int(min(Int64(periodFrames), total - done))
            if let jump = nextJump, jump.frame < done + Int64(frames) { frames = Int(jump.frame - done) }
            feed(before: done + Int64(frames))
            copyInput(from: Int(done), frames: frames, left: inputLeft, right: inputRight)
            engine.process(frames: frames, left: left, right: right,
                           inputLeft: input == nil ? nil : UnsafePointer(inputLeft),
                           inputRight: input == nil ? nil : UnsafePointer(inputRight))
            while let report = reports.pop() { onFired?(report) }
            if sendsMIDIClock { collectClock(frames: frames) }
            try files.withLockedValue { try $0.write(left, right, frames: frames) { engine.output($0) } }
            if (done + Int64(frames)) / rescueEvery != done / rescueEvery {
                for line in engine.handle.rescuePlugins() { say?(line) }
            }
            done += Int64(frames)
            if let progress {
                let percent = Int(100 * done / max(total, 1))
                if percent != lastProgress { lastProgress = percent; progress(Double(done) / Double(total)) }
            }
        }
        try files.withLockedValue { try $0.flush() }
        if sendsMIDIClock { clockMessages.append((done, MIDIEvent(status: 0xFC, data1: 0, data2: 0))) }
        let counters = engine.handle.counters.snapshot()
        return Summary(frames: done, sampleRate: engine.sampleRate, beats: counters[.beats],
                       voicesFired: counters[.voicesFired], rejectedTempos: counters[.rejectedTempos],
                       secondsTaken: MonotonicClock.seconds - started, counters: counters)
    }

    /// The period's `clock_out` messages (the engine's `--midi-clock` port), at their frames.
    private func collectClock(frames: Int) {
        let start = engine.framePosition - Int64(frames)
        engine.flushMIDI(.clock, frames: frames) { offset, message in
            clockMessages.append((start + Int64(offset), message))
            return true
        }
    }

    /// The render's files. Locked: a watchdog that stops a stuck render writes what is gathered
    /// first, from its own thread (the render thread is then inside a plugin's run, never inside
    /// the files).
    private func openFiles(out outPath: String, stems: String?,
                           onPeriod: ((UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Void)?) throws -> LockedBox<RenderFiles> {
        LockedBox(try RenderFiles(out: outPath, stems: stems.map { folder in
            guard let layout = stemLayout else { preconditionFailure("stems from a renderer made with a stem layout") }
            return (folder, layout.buses)
        }, sampleRate: engine.sampleRate, onPeriod: onPeriod))
    }

    /// The input file's frames from `start` (silence past its end) into the input buffers.
    private func copyInput(from start: Int, frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        guard let input else { return }
        for frame in 0..<frames {
            let at = start + frame
            left[frame] = at < input.frameCount ? input.left[at] : 0
            right[frame] = at < input.frameCount ? input.right[at] : 0
        }
    }

    /// Feeds the messages due before `end`, as far as the ring holds them (a lost cycle waits its turn).
    private func feed(before end: Int64) {
        let producer = sessionRing.producer
        while nextPending < pending.count, nextJump == nil, pending[nextPending].frame < end, sessionRing.count < sessionRing.capacity {
            producer.push(pending[nextPending])
            nextPending += 1
        }
    }

    /// A live take's lost cycle, due now, passed over as it was live: silence in the files, the
    /// pulses in it counted and not heard. One taken back (`frames` negative) winds the timeline
    /// back, and the output that follows drops as many frames, as the live recording did.
    private func replay(lostCycle frames: Int, files: LockedBox<RenderFiles>, silence left: UnsafeMutablePointer<Float>,
                        _ right: UnsafeMutablePointer<Float>) throws {
        guard frames > 0 else {
            engine.rewind(frames: -frames)
            files.withLockedValue { $0.drop(frames: -frames) }
            return
        }
        engine.skip(frames: frames)
        left.update(repeating: 0, count: periodFrames)
        right.update(repeating: 0, count: periodFrames)
        var written = 0
        while written < frames {
            let chunk = min(periodFrames, frames - written)
            try files.withLockedValue { try $0.write(left, right, frames: chunk) { _ in (UnsafePointer(left), UnsafePointer(right)) } }
            written += chunk
        }
    }
}

/// A render's files: the WAV, the stems beside `master.wav` (its copy), and what watches each
/// period (the meters plot); a live take's rewind drops the frames that follow. Offline.
private final class RenderFiles {
    private let writer: WavWriter
    private let stems: [WavWriter]
    private let onPeriod: ((UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Void)?
    private var dropping = 0

    /// `stems`: the folder and the buses, each `<bus>.wav`, then `master.wav`.
    init(out: String, stems: (folder: String, buses: [String])?, sampleRate: Int,
         onPeriod: ((UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Void)?) throws {
        writer = try WavWriter(path: out, sampleRate: sampleRate)
        if let stems {
            try FileManager.default.createDirectory(atPath: stems.folder, withIntermediateDirectories: true)
            self.stems = try (stems.buses + ["master"]).map { try WavWriter(path: stems.folder + "/" + $0 + ".wav", sampleRate: sampleRate) }
        } else {
            self.stems = []
        }
        self.onPeriod = onPeriod
    }

    /// The mix's `frames` frames, and each stem's (`stem(n)`: bus `n`'s buffers).
    func write(_ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, frames: Int,
               stem: (Int) -> (UnsafePointer<Float>, UnsafePointer<Float>)) throws {
        let dropped = min(dropping, frames)
        dropping -= dropped
        guard frames > dropped else { return }
        try writer.write(left: left + dropped, right: right + dropped, frames: frames - dropped)
        for number in 0..<stems.count {
            let (stemLeft, stemRight) = number == stems.count - 1 ? (left, right) : stem(number)
            try stems[number].write(left: stemLeft + dropped, right: stemRight + dropped, frames: frames - dropped)
        }
        onPeriod?(left + dropped, right + dropped, frames - dropped)
    }

    /// The next `frames` frames written are dropped.
    func drop(frames: Int) { dropping += frames }

    func flush() throws {
        try writer.flush()
        for stem in stems { try stem.flush() }
    }

    func close() {
        writer.close()
        for stem in stems { stem.close() }
    }
}
