/// PulSonify's tap-dance steps as figures on the beat's pulse grid (12 pulses a beat), so every
/// hit lands on an exact subdivision and stretches with the heartbeat.
public enum TapStep: String, CaseIterable, Sendable {
    case brush, paradiddle, shuffle, crampRoll = "cramp_roll", flap

    /// The sounds a tap voice plays.
    public enum Sound: Int, CaseIterable, Sendable {
        case toe, heel, scuff
        public var name: String { ["toe", "heel", "scuff"][rawValue] }
    }

    public struct Hit: Sendable, Equatable {
        public var pulse: Int
        public var sound: Sound
        public var velocity: Float
    }

    public var hits: [Hit] {
        switch self {
        case .brush:
            return [Hit(pulse: 0, sound: .scuff, velocity: 0.8)]
        case .shuffle:  // brush forward, brush back: two sounds in eighths
            return [Hit(pulse: 0, sound: .scuff, velocity: 0.7), Hit(pulse: 6, sound: .toe, velocity: 0.9)]
        case .flap:  // a brush into a step: grace and landing a sixteenth apart
            return [Hit(pulse: 0, sound: .scuff, velocity: 0.6), Hit(pulse: 3, sound: .toe, velocity: 1)]
        case .paradiddle:  // dig, brush, spank, heel in sixteenths
            return [Hit(pulse: 0, sound: .toe, velocity: 1), Hit(pulse: 3, sound: .scuff, velocity: 0.6),
                    Hit(pulse: 6, sound: .toe, velocity: 0.7), Hit(pulse: 9, sound: .heel, velocity: 0.8)]
        case .crampRoll:  // ball, ball, heel, heel, fast: in sixths of the beat
            return [Hit(pulse: 0, sound: .toe, velocity: 0.9), Hit(pulse: 2, sound: .toe, velocity: 0.8),
                    Hit(pulse: 4, sound: .heel, velocity: 0.9), Hit(pulse: 6, sound: .heel, velocity: 1)]
        }
    }
}
