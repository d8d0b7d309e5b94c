/// Tambour's drum regions: hand positions relative to the hip become region hits, with separate
/// enter and exit thresholds so that jitter at a boundary never retriggers. The left hand may
/// enter only the left, up and down regions; the right hand only the right, up and down ones.
/// Control thread. It turns pose samples into hits before they reach the engine.
public struct RegionModel: Sendable {
    public enum Hand: Int, Sendable, CaseIterable { case left, right }
    public enum Direction: Int, Sendable, CaseIterable { case up, down, left, right }

    /// A region: a hand and a direction, named like "left-up" or "right-right".
    public struct Region: Sendable, Equatable, Hashable {
        public var hand: Hand
        public var direction: Direction
        public var name: String { "\(hand)-\(direction)" }

        public static let all: [Region] = [
            Region(hand: .left, direction: .up), Region(hand: .left, direction: .down), Region(hand: .left, direction: .left),
            Region(hand: .right, direction: .up), Region(hand: .right, direction: .down), Region(hand: .right, direction: .right),
        ]
    }

    /// Enter and exit thresholds of one direction. `enter` is beyond `exit`, in the direction's sense.
    public struct Threshold: Sendable, Equatable {
        public var enter: Double
        public var exit: Double
        public init(enter: Double, exit: Double) {
            self.enter = enter
            self.exit = exit
        }
    }

    public var thresholds: [Direction: Threshold] = [
        .up: Threshold(enter: 0.8, exit: 0.7), .down: Threshold(enter: 0.1, exit: 0.2),
        .left: Threshold(enter: -0.4, exit: -0.3), .right: Threshold(enter: 0.4, exit: 0.3),
    ]
    /// Scale applied to positions before the thresholds (as the preset says).
    public var scale = 1.0
    /// A hit at the crossing interpolated between two samples (OSC's hands, which may come
    /// seldom), or at the sample that is beyond the threshold (a camera's frame: its capture time).
    public var interpolates = true

    private var inside: Set<Region> = []
    private var previous: (frame: Int64, left: (x: Double, y: Double), right: (x: Double, y: Double))?

    public init() {}

    public struct Hit: Sendable, Equatable {
        public var region: Region
        public var frame: Int64
    }

    /// The coordinate a direction reads, and whether "beyond" means greater.
    private static func axis(_ direction: Direction) -> (usesY: Bool, beyondIsGreater: Bool) {
        switch direction {
        case .up: return (true, true)
        case .down: return (true, false)
        case .left: return (false, false)
        case .right: return (false, true)
        }
    }

    /// A pose sample at `frame`; returns the regions entered, each at the frame where its
    /// coordinate crossed the enter threshold (interpolated from the previous sample).
    public mutating func update(frame: Int64, leftX: Double, leftY: Double, rightX: Double, rightY: Double) -> [Hit] {
        let now = (left: (x: leftX * scale, y: leftY * scale), right: (x: rightX * scale, y: rightY * scale))
        var hits: [Hit] = []
        for region in Region.all {
            guard let threshold = thresholds[region.direction] else { continue }
            let (usesY, greater) = Self.axis(region.direction)
            let position = region.hand == .left ? now.left : now.right
            let value = usesY ? position.y : position.x
            let beyondEnter = greater ? value > threshold.enter : value < threshold.enter
            let backPastExit = greater ? value < threshold.exit : value > threshold.exit
            if inside.contains(region) {
                if backPastExit { inside.remove(region) }
            } else if beyondEnter {
                inside.insert(region)
                var hitFrame = frame
                if interpolates, let previous, frame > previous.frame {
                    let old = region.hand == .left ? previous.left : previous.right
                    let before = usesY ? old.y : old.x
                    if before != value {
                        let fraction = min(1, max(0, (threshold.enter - before) / (value - before)))
                        hitFrame = previous.frame + (Int64(checkedRounding: Double(fraction) * Double(frame - previous.frame)) ?? 0)
                    }
                }
                hits.append(Hit(region: region, frame: hitFrame))
            }
        }
        previous = (frame, now.left, now.right)
        return hits.sorted { $0.frame < $1.frame }
    }
}
