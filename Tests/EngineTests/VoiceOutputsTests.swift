import CAllocCounter
import Inputs
import Foundation
import TestSupport
import XCTest
import Realtime
@testable import Presets

/// Each voice also mixed into an output of its own (stems, and later per-voice ports): on the
/// process thread, the outputs hold exactly the voice's part of the mix and cost no allocation.
final class VoiceOutputsTests: XCTestCase {
    func testOutputsSumToTheMixAndAllocateNothing() throws {
        let temporary = try TemporaryFolder("outputs")
        defer { temporary.remove() }
        let folder = temporary.url
        try """
            voices:
              - {name: a, kind: click, gain: 0.8, pan: -0.5}
              - {name: b, kind: click, gain: 0.7, subdivide: 3, pan: 0.6}
              - {name: c, kind: arpeggio, gain: 0.3}
            """.write(to: folder.appendingPathComponent("preset.yaml"), atomically: true, encoding: .utf8)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 64)
        let engine = try EngineGraph.build(preset: LoadedPreset.load(path: folder.path), sampleRate: 48_000, maxFrames: 256) {
            $0.sources = [ring]
            $0.outputs = .groups(["a", "bc"], voiceBus: [0, 1, 1])  // b and c share the second output (a group)
        }
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 190)))
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { buffer.deallocate() }
        engine.warmUp()
        var largest: Float = 0, loud: Float = 0
        pj_rt_counters_reset()
        for period in 0..<2000 {
            // Gains change at odd moments: the slewed path feeds the outputs too.
            if period % 97 == 0 { ring.producer.push(ControlMessage(.voiceParameter(voice: Int32(period % 3), .gain(Float(period % 5) / 4)))) }
            engine.process(frames: 256, left: buffer, right: buffer + 256)
            let first = engine.output(0), second = engine.output(1)
            for frame in 0..<256 {
                largest = max(largest, abs(first.left[frame] + second.left[frame] - buffer[frame]),
                              abs(first.right[frame] + second.right[frame] - buffer[256 + frame]))
                loud = max(loud, abs(second.left[frame]))
            }
        }
        XCTAssertEqual(pj_rt_allocation_count(), 0, RealtimeAllocationTrace.first)
        XCTAssertEqual(pj_rt_lock_count(), 0)
        XCTAssertLessThanOrEqual(largest, 1e-6)
        XCTAssertGreaterThan(loud, 0.1, "the shared output carries sound")
    }
}
