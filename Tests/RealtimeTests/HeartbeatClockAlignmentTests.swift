import XCTest
import Realtime

/// Another grid (Ableton Link's session) laid on the heartbeat clock: its beats land on the
/// other grid's, to the frame, with no pulse fired twice or lost.
final class HeartbeatClockAlignmentTests: XCTestCase {
    /// The first alignment jumps to the other grid's beat number and phase: beat 101 of a grid
    /// at beat 100.25 at frame 48 000 (120 BPM, 24 000 frames a beat) comes 0.75 beats on.
    func testTheFirstAlignmentTakesTheOtherGridsBeatAndPhase() {
        var clock = HeartbeatClock(sampleRate: 48_000)
        clock.setTempo(bpm: 120, atFrame: 0)
        XCTAssertTrue(clock.align(beat: 100.25, atFrame: 48_000))
        XCTAssertEqual(clock.nextPulseFrame, 48_000, "a quarter beat is three pulses: the fourth is due now")
        XCTAssertEqual(clock.nextPulsePosition.beat, 100)
        XCTAssertEqual(clock.nextPulsePosition.pulse, 3)
        XCTAssertFalse(clock.align(beat: 100.25 + 0.4 / 24_000, atFrame: 48_000), "less than half a frame: left")
        for absurd in [Double.nan, .infinity, -.infinity, 1e300] { XCTAssertFalse(clock.align(beat: absurd, atFrame: 48_000), "\(absurd) refused") }
        clock.consumePulse()
        XCTAssertEqual(clock.nextPulseFrame, 50_000)
        while clock.nextPulsePosition.pulse != 0 { clock.consumePulse() }
        XCTAssertEqual(clock.nextPulseFrame, 66_000)
        XCTAssertEqual(clock.nextPulsePosition.beat, 101)
    }

    /// A grid 60 ppm slower than the frames (a sound card's crystal against Link's clock),
    /// aligned every period: every pulse fires once, in order, within a frame of the grid's
    /// own pulse (worked out here from its beat times), for ten minutes; then the grid jumps
    /// back ten beats (a new session timeline) and the pulses go on from there.
    func testAlignedEveryPeriodEachPulseFiresOnceWithinAFrame() {
        let rate = 48_000.0, bpm = 97.0, ppm = 60e-6, period: Int64 = 256
        var offset = 3.3  // the other grid's beat at frame 0
        func gridBeat(_ frame: Int64) -> Double { offset + Double(frame) * bpm / 60 / rate / (1 + ppm) }
        func gridFrame(pulse: Int64) -> Double { (Double(pulse) / 12 - offset) * 60 * rate * (1 + ppm) / bpm }
        var clock = HeartbeatClock(sampleRate: Int(rate))
        clock.setTempo(bpm: bpm, atFrame: 0)
        var fired: [Int64] = [], worst = 0.0, frame: Int64 = 0
        func run(until end: Int64) {
            while frame < end {
                clock.align(beat: gridBeat(frame), atFrame: frame)
                while let due = clock.nextPulseFrame, due < frame + period {
                    fired.append(clock.nextPulse)
                    worst = max(worst, abs(Double(max(due, frame)) - gridFrame(pulse: clock.nextPulse)))
                    clock.consumePulse()
                }
                frame += period
                clock.advance(to: frame)
            }
        }
        run(until: Int64(600 * rate))
        XCTAssertEqual(fired.first, 40, "the first pulse after beat 3.3: 3 + 4/12")
        XCTAssertEqual(fired, Array(fired.first!...fired.last!), "every pulse once, in order")
        XCTAssertLessThanOrEqual(worst, 1.0, "within a frame of the grid's pulses")
        let last = fired.last!
        offset -= 10
        fired = []
        run(until: Int64(610 * rate))
        XCTAssertEqual(fired.first, last + 1 - 120, "ten beats back: the pulse after the new phase")
        XCTAssertEqual(fired, Array(fired.first!...fired.last!))
    }

    /// A grid that moves back a few milliseconds just after a beat sounded (CI: Link's session
    /// at 133 BPM put beat 6 5.6 ms later than where it had just sounded, and beat 11 5.4 ms
    /// later): that beat does not sound again, and the next pulse comes on the moved grid.
    func testAGridMovedBackBehindTheBeatJustFiredDoesNotFireItAgain() {
        let rate = 48_000.0, bpm = 133.0, period: Int64 = 256
        for back in [0.0054, 0.0056, 0.030, 0.040] {
            var offset = 0.0
            func gridBeat(_ frame: Int64) -> Double { offset + Double(frame) * bpm / 60 / rate }
            var clock = HeartbeatClock(sampleRate: Int(rate))
            clock.setTempo(bpm: bpm, atFrame: 0)
            var fired: [(pulse: Int64, frame: Int64)] = [], frame: Int64 = 0, moved = false
            while frame < Int64(10 * rate) {
                clock.align(beat: gridBeat(frame), atFrame: frame)
                while let due = clock.nextPulseFrame, due < frame + period {
                    fired.append((clock.nextPulse, max(due, frame)))
                    clock.consumePulse()
                }
                frame += period
                clock.advance(to: frame)
                // Just after beat 6 (pulse 72) sounded, the grid moves back `back` seconds.
                if !moved, fired.last?.pulse == 72 {
                    offset -= back * bpm / 60
                    moved = true
                }
            }
            let pulses = fired.map(\.pulse)
            XCTAssertEqual(pulses, Array(pulses.first!...pulses.last!), "\(back) s back: every pulse once, in order")
            // After the move, each pulse on the moved grid, within a frame.
            for (pulse, at) in fired where pulse > 73 {
                let due = (Double(pulse) / 12 - offset) * 60 / bpm * rate
                XCTAssertEqual(Double(at), due, accuracy: 1, "\(back) s back: pulse \(pulse)")
            }
        }
    }
}
