import Inputs
import Foundation
import TestSupport
import Voices
import EngineFixtures
import XCTest
import Realtime
@testable import Presets
@testable import SoundFiles

/// Swapping a convolution voice's clip while it plays: no gap, no click, the old clip released
/// off the process thread.
final class ClipSwapTests: XCTestCase {
    private func wav(_ samples: [Float], _ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "pulsejack-swap-\(getpid())-\(name).wav"
        let writer = try WavWriter(path: path, sampleRate: 48_000)
        try writer.write(left: samples, right: samples, frames: samples.count)
        writer.close()
        return path
    }

    private func preset(clip: String, input: Bool) throws -> LoadedPreset {
        let folder = NSTemporaryDirectory() + "pulsejack-swap-\(getpid())-\(input)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "voices:\n  - {name: conv, kind: convolution, file: \(clip), input: \(input), on_beat: false}\n"
            .write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        return try LoadedPreset.load(path: folder)
    }

    func testSparseSwapLetsOldCopiesFinishAndReleasesTheOldClipOffThread() throws {
        let loaded = try preset(clip: try wav([Float](repeating: 1, count: 3000), "a"), input: false)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: loaded, sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        let swapper = ClipSwapper(handle: engine.handle, preset: loaded, offline: true)
        weak let oldClip = (engine.slots[0].voice as? SparseConvolutionVoice)?.copies.sample
        XCTAssertNotNil(oldClip)
        ring.producer.push(ControlMessage(frame: 0, .voiceTrigger(voice: 0, velocity: 1)))
        ring.producer.push(try swapper.message(voice: "conv", clip: try wav([Float](repeating: 0.25, count: 3000), "b"), frame: 1000))
        ring.producer.push(ControlMessage(frame: 2000, .voiceTrigger(voice: 0, velocity: 1)))
        let out = Fixtures.run(engine, sizes: [256], periods: 24).left
        XCTAssertEqual(out[1500], 1, "the sounding copy goes on through the swap")
        XCTAssertEqual(out[2500], 1.25, "old copy and a new one on the new clip")
        XCTAssertEqual(out[3500], 0.25)
        swapper.releaseRetired()
        XCTAssertNil(oldClip, "released by the control thread once no copy needed it")
        XCTAssertEqual(engine.handle.counters.snapshot()[.swapsRefused], 0)
    }

    func testDenseSwapCrossfadesWithoutAClick() throws {
        let decay = (0..<4000).map { Float(exp(-Double($0) / 800)) * 0.2 }
        let loaded = try preset(clip: try wav(decay, "dense-a"), input: true)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: loaded, sampleRate: 48_000, maxFrames: 256, offline: true) { $0.sources = [ring] }
        let swapper = ClipSwapper(handle: engine.handle, preset: loaded, offline: true)
        // A clip of opposite sign: a hard switch would jump by twice the level.
        ring.producer.push(try swapper.message(voice: "conv", clip: try wav(decay.map { -$0 }, "dense-b"), frame: 24_000))
        let input = (0..<256).map { Float(sin(2 * Double.pi * Double($0) / 64)) }
        var output: [Float] = []
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        for _ in 0..<200 {
            input.withUnsafeBufferPointer { engine.process(frames: 256, left: left, right: right, inputLeft: $0.baseAddress, inputRight: $0.baseAddress) }
            output += UnsafeBufferPointer(start: left, count: 256)
        }
        let level = output[10_000..<20_000].map(abs).max()!
        XCTAssertGreaterThan(level, 0.1)
        let steady = zip(output[10_000..<20_000].dropFirst(), output[10_000..<20_000]).map { abs($0 - $1) }.max()!
        let acrossSwap = zip(output[20_000..<40_000].dropFirst(), output[20_000..<40_000]).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(acrossSwap, steady * 1.05, "the swap adds no step beyond the signal's own")
        // After the crossfade the output is the new clip's: the sign flipped.
        for frame in stride(from: 45_000, to: 45_064, by: 7) {
            XCTAssertEqual(output[frame], -output[frame - 40_960], accuracy: 1e-3)
        }
        swapper.releaseRetired()
        XCTAssertEqual(engine.handle.retiredClips.count, 0)
    }
}
