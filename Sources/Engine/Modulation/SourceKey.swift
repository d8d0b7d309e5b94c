/// What kind of change in the world a source follows: a performer's heart, EEG or hands, one
/// signal, one controller. The bank keeps, for each, the modulations that read it.
package enum SourceKey: Equatable, BitwiseCopyable {
    case heart(UInt8), eeg(UInt8), pose(UInt8), signal(Int32), controller(UInt8)

    init(_ source: ModulationSource) {
        switch source {
        case .heart(let performer, _), .beatPhase(let performer): self = .heart(performer)
        case .eeg(let performer, _), .relaxation(let performer): self = .eeg(performer)
        case .pose(let performer, _): self = .pose(performer)
        case .signal(let index): self = .signal(index)
        case .controller(let number): self = .controller(number)
        }
    }

    /// Real-time safe. Its place among `count(performers:signals:)` keys: each performer's heart,
    /// EEG and hands, then the signals, then the 128 controllers; nil beyond them.
    @inline(__always)
    func index(performers: Int, signals: Int) -> Int? {
        let place: Int, limit: Int
        switch self {
        case .heart(let performer): (place, limit) = (Int(performer), performers)
        case .eeg(let performer): (place, limit) = (Int(performer), performers)
        case .pose(let performer): (place, limit) = (Int(performer), performers)
        case .signal(let index): (place, limit) = (Int(index), signals)
        case .controller(let number): (place, limit) = (Int(number), 128)
        }
        guard place >= 0, place < limit else { return nil }
        switch self {
        case .heart: return place
        case .eeg: return performers + place
        case .pose: return 2 * performers + place
        case .signal: return 3 * performers + place
        case .controller: return 3 * performers + signals + place
        }
    }

    static func count(performers: Int, signals: Int) -> Int { 3 * performers + signals + 128 }
}
