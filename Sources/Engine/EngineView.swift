import Atomics
import Voices
import Realtime

/// The engine's settings as a live picture shows them — every voice's switch, gain, pan and
/// rate, the mode, the recorded pattern and each insert's controls — copied on the process
/// thread, which alone writes them, when the picture's thread asks (`request`, then `take` once
/// the copy is made, or `cancel`). One asker: its own copy, apart from a session save's.
// @unchecked: the buffers are written by the process thread only between the handshake's
// `begin` and `finish`, and read by the asker only after `take` or `cancel` handed them over.
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
    private let handshake: SnapshotHandshake

    /// `answered` rings when a copy asked for is made.
    init(voiceCount: Int, controls: [InsertControl], answered: Doorbell) {
        handshake = SnapshotHandshake(answered: answered)
        self.voiceCount = voiceCount
        self.controls = controls
        states = FixedBuffer(capacity: max(voiceCount, 1), repeating: VoiceState(enabled: false, gain: 0, pan: 0, rate: .everyBeat))
        pattern = FixedBuffer(capacity: TambourPerformance.patternCapacity, repeating: .skippedBeat)
        values = FixedBuffer(capacity: max(controls.count, 1), repeating: 0)
    }

    /// Control thread. Asks for a copy (the process thread makes it within a period, and rings
    /// the doorbell given at `init`).
    public func request() { handshake.request() }

    /// Control thread. The copy asked for, once made (nil until then).
    public func take() -> Picture? {
        handshake.take() ? picture() : nil
    }

    /// Control thread. Withdraws the request (the process thread is not running); the
    /// copy if it was made meanwhile.
    public func cancel() -> Picture? {
        handshake.cancel() ? picture() : nil
    }

    private func picture() -> Picture {
        Picture(voices: Array(UnsafeBufferPointer(start: states.pointer, count: voiceCount)), mode: mode,
                       pattern: Array(UnsafeBufferPointer(start: pattern.pointer, count: patternCount)),
                       insertValues: Array(UnsafeBufferPointer(start: values.pointer, count: controls.count)))
    }

    /// Real-time safe. Copies the settings — the voices', the mode and pattern, each insert
    /// control's — when the picture asked.
    func serve(_ graph: VoiceGraph, performance: borrowing TambourPerformance) {
        guard handshake.begin() else { return }
        let slots = graph.slots
        for index in 0..<slots.count {
            let slot = slots[index]
            states[index] = VoiceState(enabled: slot.enabled, gain: slot.gain, pan: slot.pan, rate: slot.rate)
        }
        for index in 0..<controls.count {
            let address = controls[index].address
            guard let chain = graph.insertChain(address) else { continue }
            let stage = chain.stages[Int(address.stage)]
            values[index] = address.port == InsertAddress.bypass
                ? (stage.bypass ? 1 : 0) : stage.current.instances[0].controlValues[Int(address.port)]
        }
        mode = performance.mode
        patternCount = performance.copyPattern(to: pattern.pointer, capacity: TambourPerformance.patternCapacity)
        handshake.finish()
    }
}
