/// Order statistics over measured values.
struct Statistics {
    let sorted: [Double]

    init<S: Sequence>(_ values: S) where S.Element: BinaryFloatingPoint {
        sorted = values.map { Double($0) }.sorted()
    }

    init<S: Sequence>(integers values: S) where S.Element: BinaryInteger {
        sorted = values.map { Double($0) }.sorted()
    }

    var count: Int { sorted.count }
    var median: Double { percentile(50) }
    var max: Double { sorted.last ?? .nan }
    var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }

    /// Nearest-rank percentile.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}

/// Median of a figure over repeated runs.
func medianOfRuns(_ runs: Int, _ measure: () throws -> Double) rethrows -> Double {
    var values: [Double] = []
    for _ in 0..<runs { values.append(try measure()) }
    return Statistics(values).median
}
