import Foundation
import Inputs

/// One of the preset's own numbers (beyond its voices): where it is, its range and unit, and the
/// value it has when the preset does not give it — written once. `LoadedPreset.load` checks each
/// against its range; whoever needs the value reads `value(in:)`.
public struct PresetField: Sendable {
    /// Its path in the preset, as an error names it ("master.gain_db").
    public let path: String
    public let range: ClosedRange<Double>
    /// Whether the range's lower bound itself is refused (`pose.scale` is above 0).
    public let excludesLowerBound: Bool
    public let unit: String
    public let defaultValue: Double?
    private let read: @Sendable (Preset) -> Double?

    init(_ path: String, _ range: ClosedRange<Double>, _ unit: String, default defaultValue: Double?, excludingLower: Bool = false,
         _ read: @escaping @Sendable (Preset) -> Double?) {
        self.path = path
        self.range = range
        excludesLowerBound = excludingLower
        self.unit = unit
        self.defaultValue = defaultValue
        self.read = read
    }

    /// What `preset` gives, if it gives it.
    public func given(in preset: Preset) -> Double? { read(preset) }

    /// What `preset` gives, else the default (a field with one).
    public func value(in preset: Preset) -> Double { read(preset) ?? defaultValue! }

    /// Why `value` is refused, or nil.
    func problem(with value: Double) -> String? {
        guard !(value.isFinite && range.contains(value) && !(excludesLowerBound && value == range.lowerBound)) else { return nil }
        let bounds = excludesLowerBound ? "(\(range.lowerBound), \(range.upperBound)]" : "\(range.lowerBound)…\(range.upperBound)"
        return "\(value) is outside \(bounds)" + (unit.isEmpty ? "" : " \(unit)")
    }
}

/// The table of the preset's own numbers.
public enum PresetFields {
    public static let masterGain = PresetField("master.gain_db", -60...12, "dB", default: 0) { $0.master?.gainDB }
    public static let masterCeiling = PresetField("master.ceiling_db", -20...0, "dBFS", default: -1) { $0.master?.ceilingDB }
    public static let masterRelease = PresetField("master.release_ms", 1...2000, "ms", default: 50) { $0.master?.releaseMS }
    public static let dropoutSeconds = PresetField("dropout.seconds", 0.5...600, "s", default: 5) { $0.dropout?.seconds }
    public static let dropoutFade = PresetField("dropout.fade_seconds", 0.05...60, "s", default: 1) { $0.dropout?.fadeSeconds }
    public static let moodWindow = PresetField("mood_window", 0.5...600, "s", default: 10) { $0.moodWindow }
    public static let poseScale = PresetField("pose.scale", 0...100, "", default: 1, excludingLower: true) { $0.pose?.scale }

    public static let hrvWindow = PresetField("hrv_window", 5...300, "s", default: 30) { $0.hrvWindow }

    public static let all = [masterGain, masterCeiling, masterRelease, dropoutSeconds, dropoutFade, moodWindow, poseScale, hrvWindow]
}
