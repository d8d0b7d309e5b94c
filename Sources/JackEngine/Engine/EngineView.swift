import Atomics
import Control
import Voices

/// The engine's settings as a live picture shows them — every voice's switch, gain, pan and
/// rate, the mode, the recorded pattern and each insert's controls — copied on the process
/// thread, which alone writes them, when the picture's thread asks (`request`, then `take` once
/// the copy is made). One asker: its own copy, apart from a session save's.
// @unchecked: the buffers are written by the process thread between `request` and the release
// of `taken`, and read by the asker only after acquiring it, before it asks again.
public final class EngineView: @unchecked Sendable {
    /// One insert control the view copies (its port, or `InsertChain.bypassPort`).
    public struct InsertControl: Sendable, Equatable {
        public var address: InsertAddress
        /// "voice/<name>" or "master", and the insert's number there (from 1): its OSC address
        /// is `/<place>/insert/<number>/<symbol>`.
        public var place: String
        public var number: Int
        public var plugin: String
        public var symbol: String
        public var name: String
        public var minimum: Float
        public var maximum: Float
    }

    public struct Picture: Sendable, Equatable {
        public var voices: [VoiceState]
        public var mode: PerformanceMode
        public var pattern: [PatternStep]
        /// In `controls` order.
        public var insertValues: [Float]
    }

    public let controls: [InsertControl]
    private let states: FixedBuffer<VoiceState>
    private let pattern: FixedBuffer<PatternStep>
    private let values: FixedBuffer<Float>
    private var patternCount = 0
    private var mode = PerformanceMode.freestyle
    private let voiceCount: Int
    private let requested = ManagedAtomic<Int>(0)
    private let taken = ManagedAtomic<Int>(0)

    init(voiceCount: Int, controls: [InsertControl]) {
        self.voiceCount = voiceCount
        self.controls = controls
        states = FixedBuffer(capacity: max(voiceCount, 1), repeating: VoiceState(enabled: false, gain: 0, pan: 0, rate: .everyBeat))
        pattern = FixedBuffer(capacity: TambourPerformance.patternCapacity, repeating: .skippedBeat)
        values = FixedBuffer(capacity: max(controls.count, 1), repeating: 0)
    }

    /// The picture's thread: asks for a copy (the process thread makes it within a period).
    public func request() { requested.wrappingIncrement(ordering: .releasing) }

    /// The picture's thread: the copy asked for, once made (nil until then).
    public func take() -> Picture? {
        guard taken.load(ordering: .acquiring) == requested.load(ordering: .relaxed) else { return nil }
        return Picture(voices: Array(UnsafeBufferPointer(start: states.pointer, count: voiceCount)), mode: mode,
                       pattern: Array(UnsafeBufferPointer(start: pattern.pointer, count: patternCount)),
                       insertValues: Array(UnsafeBufferPointer(start: values.pointer, count: controls.count)))
    }

    /// Real-time safe. Whether a copy is wanted.
    @inline(__always)
    var wanted: Bool { requested.load(ordering: .acquiring) != taken.load(ordering: .relaxed) }

    /// Real-time safe.
    func set(voice index: Int, _ state: VoiceState) { states[index] = state }
    /// Real-time safe.
    func set(control index: Int, _ value: Float) { values[index] = value }
    /// Where the process thread copies the pattern (`TambourPerformance.patternCapacity` steps).
    var patternStorage: UnsafeMutablePointer<PatternStep> { pattern.pointer }

    /// Real-time safe.
    func set(mode: PerformanceMode, patternCount: Int) {
        self.mode = mode
        self.patternCount = patternCount
    }

    /// Real-time safe. The copy is complete.
    func publish() { taken.store(requested.load(ordering: .relaxed), ordering: .releasing) }
}
