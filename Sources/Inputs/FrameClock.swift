/// Maps wall-clock time (an OSC timetag) to the engine's frame time. Any thread.
public protocol FrameClock: Sendable {
    var sampleRate: Int { get }
    /// The frame the engine is rendering about now.
    func currentFrame() -> Int64
    /// The frame at which an OSC timetag (NTP 32.32 fixed point) falls.
    func frame(forTimetag timetag: UInt64) -> Int64
}
