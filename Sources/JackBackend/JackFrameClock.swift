import CJack
import Inputs
import Foundation
import Realtime
import Engine

/// Maps OSC timetags (wall-clock time) to engine frames while running under JACK. Any thread.
///
/// The mapping is anchored once (wall time ↔ the frame JACK is rendering) and then advanced at
/// the nominal sample rate, so timetags spaced by exactly N frames map to frames exactly N apart;
/// it re-anchors only when the estimate drifts by more than 100 ms from JACK's own frame count
/// (clock drift is slow; a period or two of scheduling jitter must not move the anchor).
public final class JackFrameClock: FrameClock, Sendable {
    /// The running engine's rate (it follows the server's: `RateFollower`).
    public var sampleRate: Int { handle.sampleRate }
    private let handle: EngineHandle
    private let client: JackClient
    /// Wall time (a timetag) ↔ engine frame at a rate, set at the first timetag, on drift and
    /// when the rate changed.
    private let anchor = LockedBox<(wall: UInt64, frame: Int64, rate: Int)?>(nil)

    public init(handle: EngineHandle, client: JackClient) {
        self.handle = handle
        self.client = client
    }

    /// Now as an OSC timetag: NTP 32.32 fixed point, seconds since 1900.
    public static func nowTimetag() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(now.tv_sec + 2_208_988_800) << 32 | (UInt64(now.tv_nsec) << 32) / 1_000_000_000
    }

    /// Frames in `ticks` of 2⁻³² s, rounded to the nearest; exact integer arithmetic, so equal
    /// timetag spacing gives equal frame spacing.
    func frames(ticks: Int64, rate: Int) -> Int64 {
        let product = Int128(ticks) * Int128(rate)
        let half = Int128(1) << 31
        return Int64((product + (product >= 0 ? half : -half)) >> 32)
    }

    public func currentFrame() -> Int64 {
        handle.publishedPeriodStart.load(ordering: .relaxed) + Int64(client.framesSinceCycleStart)
    }

    /// A frame about now and its time on CLOCK_MONOTONIC, by JACK's own DLL: the engine's frame
    /// now and JACK's frame now share the frames since the cycle began (a count from the cycle's
    /// actual wake-up, which scheduling jitter makes late), so the engine frame is JACK's frame
    /// plus a constant, and that JACK frame's time is `jack_frames_to_time`'s — the filtered
    /// timeline a sound card's clock keeps, without the wake-up's jitter. jackd2's times are
    /// CLOCK_MONOTONIC_RAW's, PipeWire's CLOCK_MONOTONIC's: the offset to CLOCK_MONOTONIC is read
    /// back to back (the closest of three reads). A reading across a cycle's start may be a
    /// period off; `LSL/LabClock` takes the median of several.
    public func frameAndTime() -> (frame: Int64, seconds: Double) {
        let since = client.framesSinceCycleStart
        let engineFrame = handle.publishedPeriodStart.load(ordering: .relaxed) + Int64(since)
        return (engineFrame, client.frameTime(framesSinceCycleStart: since) ?? MonotonicClock.seconds)
    }

    public func frame(forTimetag timetag: UInt64) -> Int64 {
        let now = Self.nowTimetag(), current = currentFrame(), rate = sampleRate
        let anchored = anchor.withLockedValue { anchor in
            if let set = anchor, set.rate == rate {
                let predicted = set.frame + frames(ticks: Int64(bitPattern: now &- set.wall), rate: rate)
                if abs(predicted - current) > Int64(rate / 10) { anchor = (now, current, rate) }
            } else {
                anchor = (now, current, rate)
            }
            return anchor!
        }
        return anchored.frame + frames(ticks: Int64(bitPattern: timetag &- anchored.wall), rate: rate)
    }
}
