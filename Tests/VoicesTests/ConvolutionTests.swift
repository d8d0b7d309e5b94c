import Voices
import XCTest

/// The convolution paths against a direct convolution computed here.
final class ConvolutionTests: XCTestCase {
    /// y[n] = Σ_k x[k]·h[n−k], in Double.
    private func directConvolution(_ x: [Float], _ h: [Float], length: Int) -> [Double] {
        var y = [Double](repeating: 0, count: length)
        y.withUnsafeMutableBufferPointer { out in
            x.withUnsafeBufferPointer { input in
                h.withUnsafeBufferPointer { taps in
                    for k in 0..<min(input.count, length) where input[k] != 0 {
                        let value = Double(input[k])
                        for j in 0..<min(taps.count, length - k) { out[k + j] += value * Double(taps[j]) }
                    }
                }
            }
        }
        return y
    }

    private func noise(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2_000_001 - 1_000_000) / 1_000_000
        }
    }

    private func relativeError(_ output: [Float], _ reference: [Double]) -> Double {
        let peak = reference.map(abs).max()!
        return zip(output, reference).map { abs(Double($0) - $1) }.max()! / peak
    }

    func testSparsePathIsTheDirectConvolutionOfTheImpulseTrain() {
        let clip = noise(1500, seed: 3).enumerated().map { $1 * Float(exp(-Double($0) / 500)) }
        let voice = SparseConvolutionVoice(clip: SampleBuffer(channelData: [clip], sampleRate: 48_000),
                                           shape: .lubDub(delayFrames: 331, gain: 0.6), maxCopies: 64)
        voice.prepare(sampleRate: 48_000, maxFrames: 256)
        let length = 24_000
        // Heartbeats at uneven intervals with varying strength; each is a lub-dub pair.
        var beats: [(frame: Int, velocity: Float)] = []
        var beat = 100, velocity: Float = 1
        while beat < length - 2000 {
            beats.append((beat, velocity))
            beat += 997 + beat % 313
            velocity = velocity > 0.5 ? velocity - 0.13 : 1
        }
        var impulses = [Float](repeating: 0, count: length)
        for beat in beats {
            impulses[beat.frame] += beat.velocity
            impulses[beat.frame + 331] += beat.velocity * 0.6
        }
        // Drive the voice as the engine does: a trigger at offset 0 of the sub-block at the beat.
        var output: [Float] = []
        var left = [Float](repeating: 0, count: 256), right = [Float](repeating: 0, count: 256)
        var pending = beats[...]
        var frame = 0
        while frame < length {
            if let next = pending.first, next.frame == frame {
                voice.trigger(atFrame: 0, velocity: next.velocity)
                pending = pending.dropFirst()
            }
            let end = min(frame + 256, length, pending.first?.frame ?? .max)
            for index in 0..<(end - frame) { left[index] = 0; right[index] = 0 }
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in voice.render(left: l.baseAddress!, right: r.baseAddress!, frames: end - frame) }
            }
            output += left[0..<(end - frame)]
            frame = end
        }
        let reference = directConvolution(impulses, clip, length: length)
        XCTAssertLessThanOrEqual(relativeError(output, reference), 1e-5)
    }

    func testDensePathMatchesADirectConvolutionWithNoAddedLatency() throws {
        let quantum = 256
        // Longer than zita's first partitions, so the worker threads' partitions take part too.
        let clip = noise(6000, seed: 5).enumerated().map { $1 * Float(exp(-Double($0) / 3000)) }
        let other = noise(6000, seed: 6).enumerated().map { $1 * Float(exp(-Double($0) / 2000)) }
        let voice = try DenseConvolutionVoice(clip: SampleBuffer(channelData: [clip, other], sampleRate: 48_000),
                                              quantum: quantum, waitsForWorkers: true)
        let length = 8192
        let input = noise(length, seed: 9)
        var outputLeft: [Float] = [], outputRight: [Float] = []
        var left = [Float](repeating: 0, count: quantum), right = [Float](repeating: 0, count: quantum)
        for start in stride(from: 0, to: length, by: quantum) {
            for index in 0..<quantum { left[index] = 0; right[index] = 0 }
            let block = Array(input[start..<start + quantum])
            block.withUnsafeBufferPointer { inBuffer in
                left.withUnsafeMutableBufferPointer { l in
                    right.withUnsafeMutableBufferPointer { r in
                        voice.process(inputLeft: inBuffer.baseAddress!, inputRight: inBuffer.baseAddress!,
                                      left: l.baseAddress!, right: r.baseAddress!, frames: quantum)
                    }
                }
            }
            outputLeft += left
            outputRight += right
        }
        XCTAssertLessThanOrEqual(relativeError(outputLeft, directConvolution(input, clip, length: length)), 1e-4)
        XCTAssertLessThanOrEqual(relativeError(outputRight, directConvolution(input, other, length: length)), 1e-4)
        XCTAssertEqual(voice.lateBlocks, 0)
    }

    func testDensePathRefusesAPeriodZitaCannotUse() {
        let clip = SampleBuffer(channelData: [[1, 0.5]], sampleRate: 48_000)
        XCTAssertThrowsError(try DenseConvolutionVoice(clip: clip, quantum: 100, waitsForWorkers: true))
        XCTAssertThrowsError(try DenseConvolutionVoice(clip: clip, quantum: 32, waitsForWorkers: true))
    }
}
