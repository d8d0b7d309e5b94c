import XCTest
@testable import Engine

/// The master stage's one pass over the finished output (`OutputChannelPass`) against the plain
/// sample-by-sample formulas it replaces: clean (non-finite and subnormal samples to 0, counted),
/// count what clips, measure the meters' peak and sum of squares.
final class OutputChannelPassTests: XCTestCase {
    private func noise(_ frames: Int, scale: Float) -> [Float] {
        var generator = SystemRandomNumberGenerator()
        var samples = (0..<frames).map { _ in Float.random(in: -scale...scale, using: &generator) }
        for index in stride(from: 3, to: frames, by: 29) { samples[index] = .nan }
        for index in stride(from: 7, to: frames, by: 41) { samples[index] = index % 2 == 0 ? .infinity : -.infinity }
        for index in stride(from: 11, to: frames, by: 31) { samples[index] = Float.leastNonzeroMagnitude * Float(index) }
        return samples
    }

    /// Also from a sample off the 16-byte grid the SIMD loads step on (a chunk of a period).
    func testThePassEqualsTheSampleBySampleFormulas() {
        for frames in [0, 1, 3, 4, 5, 64, 255, 256, 1024] {
            for offset in [0, 1] {
                let original = noise(frames, scale: 1.5)
                var padded = Array(repeating: Float(0), count: offset) + original
                let figures = padded.withUnsafeMutableBufferPointer { OutputChannelPass.run($0.baseAddress! + offset, frames: frames) }
                let cleaned = Array(padded.dropFirst(offset))
                var expected: [Float] = [], nonFinite = 0, clipped = 0, peak: Float = 0, squares = 0.0
                for sample in original {
                    if !sample.isFinite { nonFinite += 1 }
                    let kept: Float = sample.isFinite && !sample.isSubnormal ? sample : 0
                    expected.append(kept)
                    if abs(kept) > 1 { clipped += 1 }
                    peak = max(peak, abs(kept))
                    squares += Double(kept * kept)
                }
                XCTAssertEqual(cleaned.map(\.bitPattern), expected.map(\.bitPattern), "\(frames) frames")
                XCTAssertEqual(figures.nonFinite, nonFinite, "\(frames) frames")
                XCTAssertEqual(figures.clipped, clipped, "\(frames) frames")
                XCTAssertEqual(figures.peak, peak, "\(frames) frames")
                XCTAssertEqual(Double(figures.squares), squares, accuracy: 1e-4 * max(1, squares), "\(frames) frames")
            }
        }
    }

    /// The master's levels are the meter's own measure of what it output, and what it counted is
    /// what the formulas count, with and without a gain before the pass.
    func testTheMastersLevelsAreTheMetersMeasureOfItsOutput() {
        for gain: Float in [1, 0.5] {
            let counters = EngineCounters()
            let master = MasterStage(settings: .init(gain: gain), sampleRate: 48_000, counters: counters)
            var left = noise(256, scale: 2), right = noise(256, scale: 0.5)
            let expectedNonFinite = (left + right).filter { !$0.isFinite }.count
            let expectedClipped = (left + right).filter { $0.isFinite && abs($0 * gain) > 1 }.count
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in master.process(left: l.baseAddress!, right: r.baseAddress!, frames: 256) }
            }
            let measured = MeterBlock.measure(left: left, right: right, frames: 256)
            XCTAssertEqual(master.levels.peakLeft, measured.peakLeft, "gain \(gain)")
            XCTAssertEqual(master.levels.peakRight, measured.peakRight, "gain \(gain)")
            XCTAssertEqual(master.levels.squaresLeft, measured.squaresLeft, accuracy: 1e-3, "gain \(gain)")
            XCTAssertEqual(master.levels.squaresRight, measured.squaresRight, accuracy: 1e-3, "gain \(gain)")
            XCTAssertEqual(master.levels.frames, 256)
            XCTAssertEqual(measured.nonFinite, 0, "nothing non-finite leaves the master")
            XCTAssertFalse((left + right).contains { $0.isSubnormal }, "nothing subnormal leaves the master")
            XCTAssertEqual(Int(master.levels.nonFinite), expectedNonFinite, "gain \(gain): the meters count what the master replaced")
            let snapshot = counters.snapshot()
            XCTAssertEqual(snapshot[.nonFiniteSamples], expectedNonFinite, "gain \(gain)")
            XCTAssertEqual(snapshot[.clippedSamples], expectedClipped, "gain \(gain)")
        }
    }
}
