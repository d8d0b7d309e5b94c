/// How the ensemble's heart (`heart: ensemble`) takes its tempo from the performers' current
/// tempi (those that have one): their mean, their median, or one leader's. It changes at the
/// frame any performer's tempo changes, and its beats follow from it under the same contract.
public enum EnsembleTempo: Equatable, Sendable, BitwiseCopyable {
    case mean, median
    /// A performer's index.
    case leader(Int)

    /// Real-time safe. The ensemble's tempo from `count` performers' tempi at `tempi` (0: that
    /// performer has none yet); nil when none applies. Sorts `tempi` in place for the median.
    func tempo(of tempi: UnsafeMutablePointer<Double>, count: Int) -> Double? {
        switch self {
        case .leader(let index):
            return index < count && tempi[index] > 0 ? tempi[index] : nil
        case .mean, .median:
            var known = 0
            for index in 0..<count where tempi[index] > 0 {
                tempi[known] = tempi[index]
                known += 1
            }
            guard known > 0 else { return nil }
            if self == .mean {
                var sum = 0.0
                for index in 0..<known { sum += tempi[index] }
                return sum / Double(known)
            }
            // Insertion sort: at most 16 performers.
            for index in 1..<max(known, 1) {
                let value = tempi[index]
                var slot = index
                while slot > 0 && tempi[slot - 1] > value {
                    tempi[slot] = tempi[slot - 1]
                    slot -= 1
                }
                tempi[slot] = value
            }
            return known % 2 == 1 ? tempi[known / 2] : (tempi[known / 2 - 1] + tempi[known / 2]) / 2
        }
    }
}
