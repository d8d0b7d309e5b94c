import Foundation

/// Heart-rate samples written as a HealthKit-style JSON export (as the ResearchKit study saves
/// them, and as `HeartSession` reads them back). Control thread.
public enum HealthKitExport {
    public struct Sample: Codable, Equatable {
        public var value: Double
        public var unit = "count/min"
        public var type = "HKQuantityTypeIdentifierHeartRate"
        public var startDate: String
        public var endDate: String
    }

    struct Document: Codable { var items: [Sample] }

    static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        return formatter
    }()

    /// `samples` as (seconds from `start`, bpm); each sample ends where the next begins.
    public static func json(samples: [(time: Double, bpm: Double)], start: Date) -> Data {
        let items = samples.enumerated().map { index, sample in
            let end = index + 1 < samples.count ? samples[index + 1].time : sample.time
            return Sample(value: sample.bpm, startDate: formatter.string(from: start.addingTimeInterval(sample.time)),
                          endDate: formatter.string(from: start.addingTimeInterval(end)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try! encoder.encode(Document(items: items))
    }
}
