import Foundation
import Realtime
/// Maps wall-clock time (an OSC timetag) to the engine's frame time. Any thread.
public protocol FrameClock: Sendable {
    var sampleRate: Int { get }
    /// The frame the engine is rendering about now.
    func currentFrame() -> Int64
    /// The frame at which an OSC timetag (NTP 32.32 fixed point) falls.
    func frame(forTimetag timetag: UInt64) -> Int64
    /// A frame about now and its time on CLOCK_MONOTONIC (LSL's clock), read together.
    func frameAndTime() -> (frame: Int64, seconds: Double)
}

extension FrameClock {
    /// The frame the engine renders about now, and when that frame is on CLOCK_MONOTONIC
    /// (seconds): here the clock read beside the frame; a JACK clock answers from JACK's own
    /// cycle times instead.
    public func frameAndTime() -> (frame: Int64, seconds: Double) {
        (currentFrame(), MonotonicClock.seconds)
    }
}
