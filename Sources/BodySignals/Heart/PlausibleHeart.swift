/// What a heart sensor may plausibly report; anything else is rejected and counted.
public enum PlausibleHeart {
    public static let bpm: ClosedRange<Double> = 25...250
    public static let rrSeconds: ClosedRange<Double> = 0.24...2.4

    public static func accepts(bpm value: Double) -> Bool { value.isFinite && bpm.contains(value) }
    public static func accepts(rr value: Double) -> Bool { value.isFinite && rrSeconds.contains(value) }
}
