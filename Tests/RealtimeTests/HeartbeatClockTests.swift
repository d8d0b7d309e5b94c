import TestSupport
import XCTest
import Realtime

final class HeartbeatClockTests: XCTestCase {
    /// Fires every pulse of `clock` up to `end`, advancing once per period as the engine does,
    /// and returns the frames of whole beats.
    private func beatFrames(_ clock: inout HeartbeatClock, from start: Int64, to end: Int64, period: Int64,
                            tempoChanges: [(frame: Int64, bpm: Double)] = []) -> [Int64] {
        var beats: [Int64] = []
        var changes = tempoChanges[...]
        var periodStart = start
        while periodStart < end {
            let periodEnd = min(periodStart + period, end)
            while true {
                let change = changes.first.flatMap { $0.frame < periodEnd ? $0 : nil }
                let pulse = clock.nextPulseFrame.flatMap { $0 < periodEnd ? $0 : nil }
                if let change, pulse == nil || change.frame <= pulse! {
                    clock.setTempo(bpm: change.bpm, atFrame: change.frame)
                    changes = changes.dropFirst()
                } else if let pulse {
                    if clock.nextPulsePosition.pulse == 0 { beats.append(pulse) }
                    clock.consumePulse()
                } else {
                    break
                }
            }
            clock.advance(to: periodEnd)
            periodStart = periodEnd
        }
        return beats
    }

    func testTwentyFourHoursAtSeventyThreeBPMHasNoDrift() {
        let rate = 48_000
        var clock = HeartbeatClock(sampleRate: rate)
        XCTAssertTrue(clock.setTempo(bpm: 73, atFrame: 0))
        let day = Int64(24 * 3600 * rate)
        let beats = beatFrames(&clock, from: 0, to: day, period: 4096)
        XCTAssertEqual(beats.count, 24 * 60 * 73)
        for (k, frame) in beats.enumerated() {
            // round(k·60·sr/73) in exact integer arithmetic (no ties: 73 is odd).
            let numerator = Int64(k) * 60 * Int64(rate)
            let expected = (2 * numerator + 73) / (2 * 73)
            if frame != expected { return XCTFail("beat \(k) at frame \(frame), expected \(expected)") }
        }
        // A floating-point cross-check at the far end.
        let last = Int64(beats.count - 1)
        XCTAssertEqual(beats.last!, Int64((Double(last) * 60 * 48_000 / 73).rounded()))
    }

    func testChangingTempoAgainstAnIndependentReferenceOverTwentyFourHours() {
        let rate = 48_000
        let day = Int64(24 * 3600 * rate)
        var generator = SystemRandomNumberGenerator()
        var changes: [(frame: Int64, bpm: Int)] = [(0, 60)]
        var frame: Int64 = 0
        while true {
            frame += Int64.random(in: 1...(Int64(rate) * 600), using: &generator)
            guard frame < day else { break }
            changes.append((frame, Int.random(in: 30...300, using: &generator)))
        }
        var clock = HeartbeatClock(sampleRate: rate)
        let beats = beatFrames(&clock, from: 0, to: day, period: 256,
                               tempoChanges: changes.map { ($0.frame, Double($0.bpm)) })
        let expected = ReferenceBeats.frames(sampleRate: rate, changes: changes, end: day)
        XCTAssertGreaterThan(expected.count, 100_000)
        XCTAssertEqual(beats.count, expected.count)
        if let mismatch = zip(beats, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            XCTFail("beat \(mismatch.offset): \(mismatch.element.0), expected \(mismatch.element.1)")
        }
    }

    func testATempoChangeTakesEffectAtItsOwnFrame() {
        var clock = HeartbeatClock(sampleRate: 48_000)
        clock.setTempo(bpm: 60, atFrame: 1000)
        XCTAssertEqual(clock.nextPulseFrame, 1000, "beat 0 at the first update")
        // At 60 BPM beat 1 would be at 49 000; at frame 25 000 (half a beat) switch to 120 BPM:
        // the remaining half beat takes 12 000 frames.
        let beats = beatFrames(&clock, from: 1000, to: 100_000, period: 64, tempoChanges: [(25_000, 120)])
        XCTAssertEqual(Array(beats.prefix(3)), [1000, 37_000, 61_000])
    }

    func testSubdivisionPulsesSitAtExactFractionsOfTheBeat() {
        var clock = HeartbeatClock(sampleRate: 48_000)
        clock.setTempo(bpm: 100, atFrame: 0)  // 28 800 frames a beat, 2 400 a pulse
        var frames: [Int64] = []
        for _ in 0..<24 {
            frames.append(clock.nextPulseFrame!)
            clock.consumePulse()
        }
        XCTAssertEqual(frames, (0..<24).map { Int64($0) * 2400 })
    }

    func testRejectsImpossibleTempoAndKeepsTheLastGoodOne() {
        var clock = HeartbeatClock(sampleRate: 48_000)
        XCTAssertTrue(clock.setTempo(bpm: 80, atFrame: 0))
        for bad in [0, -10, 300.5, 1000, .nan, .infinity, -.infinity] {
            XCTAssertFalse(clock.setTempo(bpm: bad, atFrame: 100), "bpm \(bad)")
        }
        XCTAssertEqual(clock.bpm, 80)
        clock.consumePulse()
        XCTAssertEqual(clock.nextPulseFrame, 3000, "still 80 BPM: 36 000 frames a beat, 3 000 a pulse")
        XCTAssertTrue(clock.setTempo(bpm: 300, atFrame: 200), "300 is the highest allowed")
    }

    func testBeatRateFiring() {
        let rate = BeatRate(everyNthBeat: 2, subdivision: 3)
        let fired = (0..<4).flatMap { beat in (0..<12).compactMap { pulse in rate.fires(beat: Int64(beat), pulse: pulse) ? "\(beat).\(pulse)" : nil } }
        XCTAssertEqual(fired, ["0.0", "0.4", "0.8", "2.0", "2.4", "2.8"])
        XCTAssertFalse(BeatRate(everyNthBeat: 17, subdivision: 1).isValid)
        XCTAssertFalse(BeatRate(everyNthBeat: 1, subdivision: 5).isValid)
    }
}
