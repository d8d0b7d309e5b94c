import Voices
import XCTest

final class VoiceTests: XCTestCase {
    private func render(_ voice: any Voice, frames: Int) -> (left: [Float], right: [Float]) {
        var left = [Float](repeating: 0, count: frames), right = [Float](repeating: 0, count: frames)
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in voice.render(left: l.baseAddress!, right: r.baseAddress!, frames: frames) }
        }
        return (left, right)
    }

    func testClickIsAUnitImpulseTimesVelocityAtItsFrame() {
        let click = ClickVoice()
        click.prepare(sampleRate: 48_000, maxFrames: 64)
        click.trigger(atFrame: 10, velocity: 0.5)
        click.trigger(atFrame: 70, velocity: 1)  // falls in the second block
        let first = render(click, frames: 64)
        XCTAssertEqual(first.left.indices.filter { first.left[$0] != 0 }, [10])
        XCTAssertEqual(first.left[10], 0.5)
        XCTAssertEqual(first.right[10], 0.5)
        let second = render(click, frames: 64)
        XCTAssertEqual(second.left.indices.filter { second.left[$0] != 0 }, [6])
        XCTAssertEqual(second.right[6], 1)
        XCTAssertTrue(render(click, frames: 64).left.allSatisfy { $0 == 0 })
    }

    func testSamplePlaysFromItsTriggerFrameAcrossBlocksAndOverlaps() {
        let data: [Float] = (0..<100).map { Float($0 + 1) }
        let sample = SampleBuffer(channelData: [data], sampleRate: 48_000)
        let voice = SampleVoice(sample: sample, maxPolyphony: 4)
        voice.prepare(sampleRate: 48_000, maxFrames: 64)
        voice.trigger(atFrame: 5, velocity: 1)
        voice.trigger(atFrame: 40, velocity: 0.5)
        var output: [Float] = []
        for _ in 0..<4 { output += render(voice, frames: 64).left }
        // Reference: the sum of two shifted, scaled copies.
        var expected = [Float](repeating: 0, count: 256)
        for (index, value) in data.enumerated() {
            expected[5 + index] += value
            expected[40 + index] += value * 0.5
        }
        XCTAssertEqual(output, expected)
    }

    func testStereoSampleKeepsItsChannels() {
        let sample = SampleBuffer(channelData: [[1, 2, 3], [-1, -2, -3]], sampleRate: 44_100)
        let voice = SampleVoice(sample: sample)
        voice.trigger(atFrame: 0, velocity: 1)
        let out = render(voice, frames: 4)
        XCTAssertEqual(out.left, [1, 2, 3, 0])
        XCTAssertEqual(out.right, [-1, -2, -3, 0])
    }

    func testPolyphonyLimitReplacesTheOldestNote() {
        let sample = SampleBuffer(channelData: [[Float](repeating: 1, count: 1000)], sampleRate: 48_000)
        let voice = SampleVoice(sample: sample, maxPolyphony: 2)
        for offset in [0, 1, 2] { voice.trigger(atFrame: offset, velocity: 1) }
        let out = render(voice, frames: 8)
        // The note at frame 0 is the oldest and is replaced before it sounds.
        XCTAssertEqual(out.left, [0, 1, 2, 2, 2, 2, 2, 2], "at most two notes sound at once")
        voice.silence()
        XCTAssertTrue(render(voice, frames: 8).left.allSatisfy { $0 == 0 })
    }
}
