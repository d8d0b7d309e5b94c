/// Where the music is at a frame, as a hosted plugin is told it (LV2's `time:Position`): the
/// grid heart's beat and tempo, the bar they make, and whether time rolls.
public struct TimePosition: Sendable, BitwiseCopyable, Equatable {
    /// The frame on pulsejack's timeline (JACK's frame time live, the render's frame offline).
    public var frame: Int64
    /// Beats since the grid's beat 0 (0 before it has a tempo).
    public var beat: Double
    public var beatsPerMinute: Double
    public var beatsPerBar: Double
    /// The note value of a beat: 4, a quarter note.
    public var beatUnit: Int32
    /// 1 while time rolls, 0 while it stands.
    public var speed: Double
    /// Beats a frame moves the position on by (0 while the grid has no tempo): a later frame's
    /// position, for a plugin whose first run starts there.
    public var beatsPerFrame: Double

    public init(frame: Int64, beat: Double, beatsPerMinute: Double, beatsPerBar: Double, beatUnit: Int32 = 4, speed: Double,
                beatsPerFrame: Double) {
        (self.frame, self.beat, self.beatsPerMinute, self.beatsPerBar) = (frame, beat, beatsPerMinute, beatsPerBar)
        (self.beatUnit, self.speed, self.beatsPerFrame) = (beatUnit, speed, beatsPerFrame)
    }

    /// Real-time safe. Whole bars since bar 0 (floored), and the beats since that bar's start.
    public var bar: (index: Int64, beat: Double) {
        guard beatsPerBar > 0, beat.isFinite, abs(beat) < 1e15 else { return (0, 0) }
        let bars = beat / beatsPerBar
        // Floored by hand: `rounded(.down)` reads its rule's metadata on first use (an allocation).
        var whole = Int64(bars)
        if Double(whole) > bars { whole -= 1 }
        return (whole, beat - Double(whole) * beatsPerBar)
    }

    /// Real-time safe. The same position `frames` later.
    public func movedOn(by frames: Int64) -> TimePosition {
        var later = self
        later.frame += frames
        later.beat += Double(frames) * beatsPerFrame
        return later
    }
}
