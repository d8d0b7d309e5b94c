/// Maps wall-clock time (an OSC timetag) to the engine's frame time. Any thread.
public protocol FrameClock: Sendable {
    var sampleRate: Int { get }
    /// The frame the engine is rendering about now.
    func currentFrame() -> Int64
    /// The frame at which `seconds` (since 1900, NTP, as OSC timetags count) falls.
    func frame(forTimetag seconds: Double) -> Int64
}
