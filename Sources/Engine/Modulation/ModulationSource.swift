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

    /// The performer whose body it reads (nil: a signal or controller, no one's).
    public var performer: UInt8? {
        switch self {
        case .heart(let performer, _), .beatPhase(let performer), .eeg(let performer, _), .relaxation(let performer),
             .pose(let performer, _): performer
        case .signal, .controller: nil
        }
    }

    /// Whether it is a heart's: it goes quiet with the heart's dropout.
    public var isHeart: Bool {
        switch self {
        case .heart, .beatPhase: true
        default: false
        }
    }

    /// Its name without a performer ("heart.bpm", "eeg.alpha", "midi.cc.1"; a signal's is the caller's).
    public func name(signals: [String]) -> String {
        switch self {
        case .heart(_, let measure): "heart.\(measure.rawValue)"
        case .beatPhase: "beat.phase"
        case .eeg(_, let band): "eeg.\(band.name)"
        case .relaxation: "eeg.relaxation"
        case .pose(_, let measure): "pose.\(measure.rawValue)"
        case .signal(let index): "signal.\(Int(index) < signals.count ? signals[Int(index)] : "\(index)")"
        case .controller(let number): "midi.cc.\(number)"
        }
    }

    /// Every source a performer's body offers, by name without the performer.
    public static func bodySources(performer: UInt8) -> [ModulationSource] {
        HeartMeasure.allCases.map { .heart(performer: performer, $0) } + [.beatPhase(performer: performer)]
            + EEGBand.allCases.map { .eeg(performer: performer, $0) } + [.relaxation(performer: performer)]
            + PoseMeasure.allCases.map { .pose(performer: performer, $0) }
    }
}
