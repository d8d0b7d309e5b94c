import Inputs
import Foundation
import TestSupport
import Voices
import Realtime
import Engine
import Plugins

/// Engines built in the tests, and a driver that runs them period by period.
package enum Fixtures {
    package static var presets: URL { Shipped.presets }

    package static func clickEngine(sampleRate: Int = 48_000, maxFrames: Int = 1024, voices: [String] = ["click"],
                                    rates: [BeatRate]? = nil, fired: SPSCRing<FiredVoice>? = nil,
                                    sources: [SPSCRing<ControlMessage>] = [], rebuilding: EngineHandle? = nil,
                                    wire: (inout EngineSetup) -> Void = { _ in }) -> RealtimeEngine {
        let slots = voices.enumerated().map { index, name in
            VoiceSlot(name: name, voice: ClickVoice(), enabled: true, gain: 1, pan: 0,
                      rate: rates?[index] ?? .everyBeat, followsHeart: true, silenced: false)
        }
        return engine(sampleRate: sampleRate, maxFrames: maxFrames, slots: slots, fired: fired, sources: sources, rebuilding: rebuilding,
                      wire: wire)
    }

    /// An engine of `slots` built without a preset; `wire` adds to its setup.
    package static func engine(sampleRate: Int = 48_000, maxFrames: Int, slots: [VoiceSlot], noteVoices: [Int: Int] = [:],
                               regionTargets: [RegionTarget] = [], fired: SPSCRing<FiredVoice>? = nil,
                               sources: [SPSCRing<ControlMessage>] = [], masterInserts: InsertChain? = nil,
                               rebuilding: EngineHandle? = nil, wire: (inout EngineSetup) -> Void = { _ in }) -> RealtimeEngine {
        var setup = EngineSetup(sampleRate: sampleRate, maxFrames: maxFrames, slots: slots, masterInserts: masterInserts,
                                rebuilding: rebuilding)
        setup.midi.noteVoices = noteVoices
        setup.regionTargets = regionTargets
        setup.firedReports = fired
        setup.sources = sources
        wire(&setup)
        return RealtimeEngine(setup)
    }

    /// Runs `engine` for `periods` of `sizes` frames (cycled), returning both channels.
    package static func run(_ engine: RealtimeEngine, sizes: [Int], periods: Int,
                            beforePeriod: (Int64) -> Void = { _ in }) -> (left: [Float], right: [Float]) {
        var left: [Float] = [], right: [Float] = []
        let largest = sizes.max()!
        let l = UnsafeMutablePointer<Float>.allocate(capacity: largest)
        let r = UnsafeMutablePointer<Float>.allocate(capacity: largest)
        defer { l.deallocate(); r.deallocate() }
        for index in 0..<periods {
            let frames = sizes[index % sizes.count]
            beforePeriod(engine.framePosition)
            engine.process(frames: frames, left: l, right: r)
            left += UnsafeBufferPointer(start: l, count: frames)
            right += UnsafeBufferPointer(start: r, count: frames)
        }
        return (left, right)
    }
}
