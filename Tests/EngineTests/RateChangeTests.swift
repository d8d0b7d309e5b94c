import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Engine

/// The server changed its sample rate: an engine rebuilt at the new rate takes over from the
/// parked one, everything in seconds.
final class RateChangeTests: XCTestCase {
    /// Pulse n of a 73-BPM clock started at frame 1,000 is at 1000 + n·60·48000/(73·12) frames
    /// (exactly, as a fraction); rescaled to 44.1 kHz at frame 30,001, each later pulse lands on
    /// that time in seconds counted at the new rate from there, rounded to the nearest frame.
    func testARescaledClockKeepsEveryPulseAtItsTimeInSeconds() {
        var clock = HeartbeatClock(sampleRate: 48_000)
        clock.setTempo(bpm: 73, atFrame: 1000)
        let change: Int64 = 30_001
        while let frame = clock.nextPulseFrame, frame < change { clock.consumePulse() }
        clock.advance(to: change)
        var rescaled = clock.rescaled(to: 44_100, at: change)
        XCTAssertEqual(rescaled.bpm, 73)
        let perBeat = Int64(BeatRate.pulsesPerBeat)
        for n in clock.nextPulse..<clock.nextPulse + 60 {
            // In 48 kHz frames: 1000 + n·2,880,000/(73·12); from the change on, ×44100/48000.
            let numerator = (1000 * 73 * perBeat + n * 2_880_000 - change * 73 * perBeat) * 44_100
            let denominator = 73 * perBeat * 48_000
            let expected = change + (2 * numerator + denominator) / (2 * denominator)
            XCTAssertEqual(rescaled.nextPulseFrame, expected, "pulse \(n)")
            XCTAssertEqual(rescaled.nextPulsePosition.beat, n / perBeat)
            rescaled.consumePulse()
        }
    }

    /// A 120-BPM click at 48 kHz, its voice's gain changed, runs 25,600 frames (beats at 0 and
    /// 24,000, the second's MIDI note-off still to come); the engine rebuilt at 44.1 kHz takes
    /// over: beats go on every 22,050 frames from where half-second beats fall (1 s is 20,580
    /// frames after the change), the gain and the tempo stay, the note-off keeps its distance in
    /// seconds, and the handle shows the new engine once adopted.
    func testAnEngineRebuiltAtANewRateGoesOnInSeconds() throws {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let old = Fixtures.clickEngine(sampleRate: 48_000, maxFrames: 256, sources: [ring])
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 120)))
        ring.producer.push(ControlMessage(frame: 0, .voiceParameter(voice: 0, .gain(0.5))))
        let before = Fixtures.run(old, sizes: [256], periods: 100)
        XCTAssertEqual(WavFile.soundStarts(before.left, threshold: 0.01), [0, 24_000])

        let next = Fixtures.clickEngine(sampleRate: 44_100, maxFrames: 256, sources: [ring], rebuilding: old.handle)
        next.warmUp()
        let folder = try TemporaryFolder("rate-states")
        XCTAssertEqual(next.takeOver(from: old, stateFolder: folder.url.path), [])
        XCTAssertEqual(next.framePosition, 25_600)
        XCTAssertEqual(next.slots[0].gain, 0.5, "the voice's setting carried over")
        var notes: [(frame: Int64, status: UInt8)] = []
        next.firing.midiOut.drain(before: .max) { notes.append(($0.frame, $0.status)) }
        XCTAssertEqual(notes.map(\.frame), [25_600 + (28_800 - 25_600) * 44_100 / 48_000], "the 0.1 s note's off, in seconds")
        XCTAssertEqual(notes.map(\.status), [0x80])

        old.handle.adopt(next)
        XCTAssertEqual(old.handle.sampleRate, 44_100)
        XCTAssertEqual(old.handle.publishedTempo, 120)
        let after = Fixtures.run(next, sizes: [256], periods: 400)
        let heard = WavFile.soundStarts(after.left, threshold: 0.01).map { 25_600 + Int64($0) }
        // Beat k at k/2 s: 0.5333 s had passed at the change.
        let passed: Int64 = 25_600 * 44_100 / 48_000  // 0.5333 s in frames of the new rate
        let expected: [Int64] = (2..<6).map { (k: Int64) -> Int64 in 25_600 + k * 22_050 - passed }
        XCTAssertEqual(heard, expected)
        // The second beat's click, at the gain set (the first began as the gain slewed to it).
        XCTAssertEqual(after.left.max().map { ($0 * 100).rounded() / 100 }, before.left[12_000...].max().map { ($0 * 100).rounded() / 100 },
                       "the same gain")
    }

}
