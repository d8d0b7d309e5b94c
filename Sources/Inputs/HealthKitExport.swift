import Foundation

/// The HealthKit heart-rate export's schema, written once: what the study saves
/// (`HealthKitExport.json`) and what `HeartSession.parseHealthKit` reads back.
/// `{"items":[{"value":72,"unit":"count/min","type":"HKQuantityTypeIdentifierHeartRate","startDate":…,"endDate":…}]}`
public enum HealthKitSchema {
    public static let unit = "count/min"
    public static let type = "HKQuantityTypeIdentifierHeartRate"

    /// One sample; reading, only `value` and `startDate` are required.
    public struct Sample: Codable, Equatable {
        public var value: Double
        public var unit: String?
        public var type: String?
        public var startDate: String
        public var endDate: String?
    }

    public struct Document: Codable { public var items: [Sample] }

    /// The dates a reader accepts; the first-listed with fractions is the one written.
    static let dateFormats = [
        "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ss.SSSZ", "yyyy-MM-dd HH:mm:ss Z",
        "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX",
    ]
    static let writtenDateFormat = dateFormats[1]
}

/// Heart-rate samples written as a HealthKit-style JSON export (as the ResearchKit study saves
/// them, and as `HeartSession` reads them back). Control thread.
public enum HealthKitExport {
    static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = HealthKitSchema.writtenDateFormat
        return formatter
    }()

    /// `samples` as (seconds from `start`, bpm); each sample ends where the next begins.
    public static func json(samples: [(time: Double, bpm: Double)], start: Date) -> Data {
        let items = samples.enumerated().map { index, sample in
            let end = index + 1 < samples.count ? samples[index + 1].time : sample.time
            return HealthKitSchema.Sample(value: sample.bpm, unit: HealthKitSchema.unit, type: HealthKitSchema.type,
                                          startDate: formatter.string(from: start.addingTimeInterval(sample.time)),
                                          endDate: formatter.string(from: start.addingTimeInterval(end)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try! encoder.encode(HealthKitSchema.Document(items: items))
    }
}
