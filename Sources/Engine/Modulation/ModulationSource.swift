import Realtime

/// What a modulation reads: a measure of a performer's heart, EEG or hands, the beat's phase, a
/// named signal, or a MIDI controller. Performers by index (the preset's order; 0 when it names
/// none); signals by index in the preset's signal names.
public enum ModulationSource: Sendable, Equatable, Hashable, BitwiseCopyable {
    case heart(performer: UInt8, HeartMeasure)
    /// 0 → 1 through each beat of the performer's heart.
    case beatPhase(performer: UInt8)
    case eeg(performer: UInt8, EEGBand)
    /// alpha / (alpha + beta): toward 1 relaxed, toward 0 alert.
    case relaxation(performer: UInt8)
    case pose(performer: UInt8, PoseMeasure)
    case signal(Int32)
    case controller(UInt8)

    public enum HeartMeasure: String, Sendable, CaseIterable, BitwiseCopyable {
        case bpm, rr, rmssd, sdnn, breathRate = "breath_rate"
    }

    public enum PoseMeasure: String, Sendable, CaseIterable, BitwiseCopyable {
        case leftX = "left.x", leftY = "left.y", rightX = "right.x", rightY = "right.y", spread
    }

    /// Whether it is a heart's: it goes quiet with the heart's dropout.
    public var isHeart: Bool {
        switch self {
        case .heart, .beatPhase: true
        default: false
        }
    }
}
