import Foundation
import Realtime

/// The engine's frames on CLOCK_MONOTONIC (LSL's `lsl_local_clock`, a camera's buffer times) and back. JACK's
/// frames do not run at exactly their nominal rate on that clock: a sound card has its own
/// crystal, and even the dummy driver keeps jackd2's time, CLOCK_MONOTONIC_RAW, which NTP does
/// not slew (60 ppm apart here). So the mapping is a line — an anchor (an LSL time and the
/// frame rendered then) and a rate — that a delay-locked loop keeps on the frames, as JACK's
/// own DLL keeps its cycle times: twice a second it reads a frame and its time
/// (`FrameClock.frameAndTime`: live, by JACK's DLL) three times, takes the median's error from
/// the line (a reading may be a period off where a cycle began between its two halves), and
/// moves the anchor and the rate toward it (bandwidth 0.02 Hz). The line is exact both ways
/// and continuous: an update's move of the anchor is spread over the next half second (`bend`)
/// as a change of rate, so equal frame spacing is equal time spacing to tens of microseconds.
///
/// An xrun moves JACK's timeline: jackd2's dummy driver, woken late, counts no frames for the
/// time it lost and starts its grid again from the late wake-up (`JackTimedDriver::ProcessWait`),
/// and its DLL then takes seconds to settle on the new grid; a card's driver restarts its stream.
/// An error beyond `drift` (2 ms) is such a step, not a crystal's drift: the rate is left alone,
/// and the anchor is slewed toward it, by at most `slew` or a twentieth of the error each half
/// second, whichever is more, spread over that half second — so sounds 0.1 s apart stay that
/// far apart to a hundredth of the step (1 ms at the largest, `tolerance`) while the line
/// catches up. Stepping it made a camera's hits jump 2 to 9 ms at one xrun, and chase JACK's
/// DLL as it settled; moving the anchor a twentieth at once each update put a camera's hits
/// 0.1 s apart 1.2 ms closer after a 24 ms xrun (in CI). An error beyond `tolerance` (the
/// median of five readings: one reading may be taken mid-xrun) is a new timeline — the server
/// restarted, the rate changed: the line is set again from the median of five readings at the
/// nominal rate.
/// Any thread.
public final class LabClock: Sendable {
    private let frames: any FrameClock
    /// The line, the times it was set from scratch, and how many times it was stored (a reader
    /// stores its update only over the line it started from).
    private struct Kept {
        var line: Line?
        var anchors = 0
        var stores = 0
    }
    private let kept = LockedBox(Kept())
    /// How far the frame now may stray before the line is set again: 0.1 s, as `JackFrameClock`'s
    /// timetags (an xrun's step is far less; a restarted server's, seconds).
    public static let tolerance = 0.1
    /// An error beyond this (seconds) is a step of JACK's timeline, slewed; within it, drift.
    static let drift = 0.002
    /// The least a step is slewed by an update half a second after the last (seconds): 0.5 ms a second.
    static let slew = 0.00025
    /// Seconds between the loop's updates, and its bandwidth (Hz).
    static let updateEvery = 0.5, bandwidth = 0.02
    /// Seconds over which an update's move of the anchor is spread (an update's interval: made
    /// up before the next update reads the error).
    static let bend = updateEvery
    /// Times the line was set from scratch.
    public var anchors: Int { kept.withLockedValue { $0.anchors } }

    public init(frames: any FrameClock) {
        self.frames = frames
    }

    public var sampleRate: Int { frames.sampleRate }
    /// The frame the engine renders about now.
    public var currentFrame: Int64 { frames.currentFrame() }

    /// `count` readings of a frame and its time, sorted by their error from `line` (or from the
    /// nominal rate through the first). Taken outside the lock: they sleep between readings.
    private func readings(_ count: Int, from line: Line?) -> [(seconds: Double, frame: Double, error: Double)] {
        var taken: [(seconds: Double, frame: Double)] = []
        for index in 0..<count {
            if index > 0 { usleep(200) }
            let reading = frames.frameAndTime()
            taken.append((reading.seconds, Double(reading.frame)))
        }
        let reference = line ?? Line(seconds: taken[0].seconds, frame: taken[0].frame, nominal: frames.sampleRate)
        return taken.map { ($0.seconds, $0.frame, reference.error(frame: $0.frame, seconds: $0.seconds)) }.sorted { $0.error < $1.error }
    }

    /// The line, kept on the frames. The lock is held only to read the line and to store a new
    /// one: the readings (and their sleeps) are taken outside it, so a caller never waits for
    /// another's readings. Two callers that update at once each read the same line; the first
    /// to store wins, and the other uses that line.
    private func current() -> Line {
        let (seen, stores) = kept.withLockedValue { ($0.line, $0.stores) }
        let rate = frames.sampleRate
        guard var line = seen, line.nominal == rate else { return anchor(over: stores) }
        let limit = Self.tolerance * Double(rate)
        let (frameNow, time) = frames.frameAndTime()
        if abs(line.error(frame: Double(frameNow), seconds: time)) > limit, abs(readings(5, from: line)[2].error) > limit {
            return anchor(over: stores)
        }
        guard time - line.updated >= Self.updateEvery else { return line }
        let middle = readings(3, from: line)[1]
        guard abs(middle.error) <= limit else { return anchor(over: stores) }
        line.follow(middle.error, at: middle.seconds)
        return store(line, over: stores, anchored: false)
    }

    /// The line set from scratch: the median of five readings, at the nominal rate.
    private func anchor(over stores: Int) -> Line {
        let median = readings(5, from: nil)[2], rate = frames.sampleRate
        return store(Line(seconds: median.seconds, frame: median.frame, nominal: rate), over: stores, anchored: true)
    }

    /// `line` stored if no other caller stored one since this one read `stores`; else theirs.
    private func store(_ line: Line, over stores: Int, anchored: Bool) -> Line {
        kept.withLockedValue { kept in
            if kept.stores != stores, let theirs = kept.line { return theirs }
            kept.line = line
            kept.stores += 1
            if anchored { kept.anchors += 1 }
            return line
        }
    }

    /// The LSL time at which `frame` is rendered (add the playback latency for when it is heard).
    public func seconds(atFrame frame: Int64) -> Double {
        current().seconds(at: Double(frame))
    }

    /// The engine frame (fractional) rendered at LSL time `seconds`.
    public func frame(atSeconds seconds: Double) -> Double {
        current().frame(at: seconds)
    }
}
