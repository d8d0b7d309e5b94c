/// How often a voice fires relative to the heartbeat: on every Nth beat, and on `subdivision`
/// evenly spaced pulses within each such beat (PulSonify's "every 1st, 2nd, 3rd or 4th beat").
public struct BeatRate: Sendable, Equatable, Hashable, BitwiseCopyable {
    public var everyNthBeat: UInt8
    public var subdivision: UInt8

    public static let everyBeat = BeatRate(everyNthBeat: 1, subdivision: 1)
    /// The pulse grid per beat on which every allowed subdivision lies: lcm(2, 3, 4).
    public static let pulsesPerBeat = 12

    public init(everyNthBeat: UInt8 = 1, subdivision: UInt8 = 1) {
        self.everyNthBeat = everyNthBeat
        self.subdivision = subdivision
    }

    /// Real-time safe (plain comparisons: a generic `contains` on an array allocates in debug builds).
    public var isValid: Bool {
        everyNthBeat >= 1 && everyNthBeat <= 16 && subdivision >= 1 && subdivision <= 4
    }

    /// Real-time safe. Whether a voice at this rate fires on pulse `pulse` (of
    /// `pulsesPerBeat`) of beat `beat`.
    @inline(__always)
    @_noLocks @_noAllocation
    public func fires(beat: Int64, pulse: Int) -> Bool {
        let step = Self.pulsesPerBeat / Int(subdivision)
        return pulse % step == 0 && beat % Int64(everyNthBeat) == 0
    }
}
