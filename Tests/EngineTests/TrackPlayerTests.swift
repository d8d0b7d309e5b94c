import Inputs
import Foundation
import TestSupport
import Voices
import EngineFixtures
import XCTest
import Realtime
@testable import Engine

/// The track player: Rubber Band in real-time mode stretches a track so its beat follows the heart.
final class TrackPlayerTests: XCTestCase {
    /// A track at `bpm`: a short 1 kHz burst on every beat, for `seconds`.
    private func clickTrack(bpm: Double, seconds: Double) -> SampleBuffer {
        let frames = Int(seconds * 48_000), beat = 60 * 48_000 / bpm
        var samples = [Float](repeating: 0, count: frames)
        var start = 0.0
        while Int(start) + 480 < frames {
            for index in 0..<480 {
                samples[Int(start) + index] = Float(sin(2 * Double.pi * 1000 * Double(index) / 48_000) * (1 - Double(index) / 480))
            }
            start += beat
        }
        return SampleBuffer(channelData: [samples, samples], sampleRate: 48_000)
    }

    /// Frames where the signal's 5 ms envelope rises through half its peak.
    private func beats(_ signal: [Float]) -> [Int] {
        let window = 240
        var envelope = [Float](repeating: 0, count: signal.count)
        var sum: Float = 0
        for index in signal.indices {
            sum += abs(signal[index])
            if index >= window { sum -= abs(signal[index - window]) }
            envelope[index] = sum / Float(window)
        }
        let threshold = envelope.max()! / 2
        var onsets: [Int] = []
        for index in 1..<envelope.count where envelope[index] >= threshold && envelope[index - 1] < threshold {
            if let last = onsets.last, index - last < 4800 { continue }
            onsets.append(index)
        }
        return onsets
    }

    func testTheStretchedTracksBeatPeriodIsWithinOnePercentOfTheHearts() {
        for heart in [120.0, 80.0] {
            let player = TrackPlayerVoice(track: clickTrack(bpm: 100, seconds: 20), trackBPM: 100)
            let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
            let engine = Fixtures.engine(sampleRate: 48_000, maxFrames: 256,
                                        slots: [VoiceSlot(name: "track", voice: player, enabled: true, gain: 1, pan: 0,
                                                          rate: .everyBeat, followsHeart: true, silenced: false)],
                                        noteVoices: [:], sources: [ring])
            ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: heart)))
            let out = Fixtures.run(engine, sizes: [256], periods: 48_000 * 10 / 256).left
            XCTAssertEqual(player.timeRatio, 100 / heart, accuracy: 1e-12)
            let onsets = beats(out)
            let periods = zip(onsets.dropFirst(), onsets).map { Double($0 - $1) }.sorted()
            XCTAssertGreaterThan(periods.count, 8, "heart \(heart): \(onsets)")
            let median = periods[periods.count / 2]
            let expected = 60 * 48_000 / heart
            XCTAssertEqual(median, expected, accuracy: expected * 0.01, "heart \(heart) BPM")
        }
    }

    func testTheRatioIsClampedToTheStretchRange() {
        let player = TrackPlayerVoice(track: clickTrack(bpm: 100, seconds: 1), trackBPM: 100, ratioRange: 0.8...1.25)
        player.prepare(sampleRate: 48_000, maxFrames: 256)
        player.follow(bpm: 200)
        XCTAssertEqual(player.timeRatio, 0.8, "a heart twice as fast: the track speeds up only as far as allowed")
        player.follow(bpm: 50)
        XCTAssertEqual(player.timeRatio, 1.25)
        player.follow(bpm: 110)
        XCTAssertEqual(player.timeRatio, 100.0 / 110, accuracy: 1e-12)
    }
}
