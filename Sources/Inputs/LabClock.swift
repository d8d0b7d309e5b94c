import Foundation
import Realtime

/// The engine's frames on CLOCK_MONOTONIC (LSL's `lsl_local_clock`, a camera's buffer times) and back. JACK's
/// frames do not run at exactly their nominal rate on that clock: a sound card has its own
/// crystal, and even the dummy driver keeps jackd2's time, CLOCK_MONOTONIC_RAW, which NTP does
/// not slew (60 ppm apart here). So the mapping is a line — an anchor (an LSL time and the
/// frame rendered then) and a rate — that a delay-locked loop keeps on the frames, as JACK's
/// own DLL keeps its cycle times: twice a second it reads a frame and its time
/// (`FrameClock.frameAndTime`: live, by JACK's DLL) three times,
/// takes the median's error from the line (a reading may be a period off where a cycle began
/// between its two halves), and moves the anchor and the rate toward it (bandwidth 0.02 Hz).
/// Between those updates the line is exact both ways, so equal frame spacing is equal time
/// spacing; at an update it moves by microseconds. An error beyond `tolerance` (checked at every
/// call, one reading), or beyond 2 ms three updates running, is a new timeline (the server restarted, the rate changed): the
/// line is set again from the median of five readings at the nominal rate. Any thread.
public final class LabClock: Sendable {
    private let frames: any FrameClock
    private struct Line {
        var seconds: Double
        var frame: Double
        /// Frames a second of LSL's clock.
        var rate: Double
        var nominal: Int
        var updated: Double
        var strays = 0
    }
    /// The line, the times it was set from scratch, and how many times it was stored (a reader
    /// stores its update only over the line it started from).
    private struct Kept {
        var line: Line?
        var anchors = 0
        var stores = 0
    }
    private let kept = LockedBox(Kept())
    /// How far the frame now may stray before the line is set again: 20 ms.
    public static let tolerance = 0.02
    /// Seconds between the loop's updates, and its bandwidth (Hz).
    static let updateEvery = 0.5, bandwidth = 0.02
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
        let rate = line?.rate ?? Double(frames.sampleRate)
        let reference = line.map { ($0.seconds, $0.frame) } ?? (taken[0].seconds, taken[0].frame)
        return taken.map { ($0.seconds, $0.frame, $0.frame - (reference.1 + rate * ($0.seconds - reference.0))) }.sorted { $0.error < $1.error }
    }

    /// The line, kept on the frames. The lock is held only to read the line and to store a new
    /// one: the readings (and their sleeps) are taken outside it, so a caller never waits for
    /// another's readings. Two callers that update at once each read the same line; the first
    /// to store wins, and the other uses that line.
    private func current() -> Line {
        let (seen, stores) = kept.withLockedValue { ($0.line, $0.stores) }
        let rate = frames.sampleRate
        let (frameNow, time) = frames.frameAndTime()
        if var line = seen, line.nominal == rate,
           abs(Double(frameNow) - (line.frame + line.rate * (time - line.seconds))) <= Self.tolerance * Double(rate) {
            guard time - line.updated >= Self.updateEvery else { return line }
            let middle = readings(3, from: line)[1]
            let error = middle.error
            let strays = abs(error) > 0.002 * Double(rate)
            if abs(error) <= Self.tolerance * Double(rate) && (!strays || line.strays < 2) {
                let interval = middle.seconds - line.updated
                line.strays = strays ? line.strays + 1 : 0
                if !strays {
                    // A second-order loop: ω = 2π·B·T; the anchor moves by √2·ω of the error, the rate by ω² of it a period.
                    let omega = 2 * Double.pi * Self.bandwidth * max(interval, Self.updateEvery)
                    let predicted = line.frame + line.rate * (middle.seconds - line.seconds)
                    line.frame = predicted + 2.squareRoot() * omega * error
                    line.seconds = middle.seconds
                    line.rate += omega * omega * error / max(interval, Self.updateEvery)
                }
                line.updated = middle.seconds
                return store(line, over: stores, anchored: false)
            }
        }
        let median = readings(5, from: nil)[2]
        return store(Line(seconds: median.seconds, frame: median.frame, rate: Double(rate), nominal: rate, updated: median.seconds),
                     over: stores, anchored: true)
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
        let set = current()
        return set.seconds + (Double(frame) - set.frame) / set.rate
    }

    /// The engine frame (fractional) rendered at LSL time `seconds`.
    public func frame(atSeconds seconds: Double) -> Double {
        let set = current()
        return set.frame + (seconds - set.seconds) * set.rate
    }
}
