import BodySignals
import UserFiles
import Foundation
import Realtime

/// A recorded heart session, replayed offline: tempo updates and explicit beats in time order.
///
/// Read from a HealthKit heart-rate JSON export (time 0 is the first sample's startDate) or a
/// CSV with a header row: `time,bpm`, `time,beat` (the beat's strength, 0…1, may be empty),
/// `time,rr` (seconds), `time,ppg` (raw pulse-wave samples), `time,lx,ly,rx,ry` (hands relative
/// to the hip) or `time,alpha,beta,delta,theta,gamma` (EEG band powers). Time in seconds from 0.
/// Control thread.
public struct HeartSession: Sendable {
    public enum Event: Sendable, Equatable {
        case tempo(bpm: Double)
        case beat(strength: Float)
        /// An RR interval (seconds) ending at this time: a beat, and the tempo it implies.
        case rr(seconds: Double)
        /// One raw pulse-wave sample (fed to the PPG beat detector).
        case ppg(Double)
        case pose(leftX: Float, leftY: Float, rightX: Float, rightY: Float)
        case bands(alpha: Float, beta: Float, delta: Float, theta: Float, gamma: Float)
    }

    /// The CSV layouts, by header.
    static let layouts: [String: Int] = [
        "time,bpm": 1, "time,beat": 1, "time,rr": 1, "time,ppg": 1,
        "time,lx,ly,rx,ry": 4, "time,alpha,beta,delta,theta,gamma": 5,
    ]

    public struct Entry: Sendable, Equatable {
        public var time: Double
        public var event: Event
        /// Where it came from, for messages: the CSV line or the JSON item's index.
        public var line: Int
    }

    /// An entry read but not accepted (an impossible heart rate), kept so it can be reported.
    public struct Rejection: Sendable, Equatable, CustomStringConvertible {
        public var place: String
        public var message: String
        public var description: String { "\(place): \(message)" }

        /// What a run says of them: the first three, each clipped, then how many more.
        public static func report(_ kept: [Rejection], total: Int) -> [String] {
            kept.prefix(3).map { LogLine.clipped($0.description) }
                + (total > 3 ? kept.first.map { ["\(total - 3) more entries rejected in \(LogLine.clipped($0.place, to: 200))…"] } ?? [] : [])
        }
    }

    public var path: String
    public var entries: [Entry]
    /// The first `keptRejections` entries rejected; `rejectedCount` counts them all.
    public var rejections: [Rejection]
    public var rejectedCount = 0
    public static let keptRejections = 100

    public var duration: Double { entries.last?.time ?? 0 }

    /// The longest a session may last (as `render --duration`): 24 hours. A time past it is an
    /// error that names its line, not a render without end.
    public static let maximumSeconds = 86_400.0

    /// Control thread. Reads the file at `path`, choosing the format by content.
    public static func load(path: String) throws -> HeartSession {
        let data = try UserFile.read(path, what: "session file")
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(file: path, "the session file is not UTF-8 text")
        }
        let trimmed = text.drop(while: { $0.isWhitespace })
        if trimmed.first == "{" {
            return try parseHealthKit(data: data, path: path)
        }
        return try parseCSV(text: text, path: path)
    }

    // MARK: CSV

    public static func parseCSV(text: String, path: String) throws -> HeartSession {
        var entries: [Entry] = []
        var rejections: (kept: [Rejection], count: Int) = ([], 0)
        var layout: String?
        // Any line ending (LF, CRLF, CR): "\r\n" is one Character, so splitting on "\n" would miss it.
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let lineNumber = index + 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let kind = layout else {
                let header = fields.map { $0.lowercased() }.joined(separator: ",")
                guard layouts[header] != nil else {
                    throw InputError(file: path, line: lineNumber,
                                     "expected a header row: \(layouts.keys.sorted().joined(separator: " | ")), found '\(LogLine.clipped(line, to: 80))'")
                }
                layout = header
                continue
            }
            let columns = layouts[kind]! + 1
            guard fields.count == columns || (kind == "time,beat" && fields.count == 1) else {
                throw InputError(file: path, line: lineNumber, "expected \(columns) fields (\(kind)), found \(fields.count)")
            }
            guard let time = Double(fields[0]), time.isFinite, time >= 0 else {
                throw InputError(file: path, line: lineNumber, "time '\(fields[0])' is not a number of seconds ≥ 0")
            }
            guard time <= maximumSeconds else {
                throw InputError(file: path, line: lineNumber, "time \(fields[0]) s is past the 24 h (86400 s) a session may last")
            }
            if let entry = try csvEntry(kind: kind, fields: fields, time: time, path: path, line: lineNumber, rejections: &rejections) {
                entries.append(entry)
            }
        }
        if layout == nil {
            throw InputError(file: path, "the session file is empty (expected a header row such as 'time,bpm')")
        }
        return HeartSession(path: path, entries: ordered(entries), rejections: rejections.kept, rejectedCount: rejections.count)
    }

    /// One CSV row of `kind` after its time: its entry, or nil when its value is rejected (kept
    /// in `rejections`). Throws for a row that is not what its header says.
    private static func csvEntry(kind: String, fields: [String], time: Double, path: String, line: Int,
                                 rejections: inout (kept: [Rejection], count: Int)) throws -> Entry? {
        let valueText = fields.count > 1 ? fields[1] : ""
        func number(_ text: String, _ name: String) throws -> Double {
            guard let value = Double(text) ?? (text.lowercased() == "nan" ? .nan : nil) else {
                throw InputError(file: path, line: line, "\(name) '\(text)' is not a number")
            }
            return value
        }
        switch kind {
        case "time,bpm":
            let bpm = try number(valueText, "bpm")
            if PlausibleHeart.accepts(bpm: bpm) {
                return Entry(time: time, event: .tempo(bpm: bpm), line: line)
            } else {
                reject(&rejections, Rejection(place: "\(path):\(line)", message: "bpm \(valueText) rejected (a heart beats 25…250 times a minute)"))
            }
        case "time,beat":
            let strength: Float
            if valueText.isEmpty {
                strength = 1
            } else if let value = Float(valueText), value.isFinite, (0...1).contains(value) {
                strength = value
            } else {
                throw InputError(file: path, line: line, "beat strength '\(valueText)' is not a number in 0…1")
            }
            return Entry(time: time, event: .beat(strength: strength), line: line)
        case "time,rr":
            let rr = try number(valueText, "rr")
            if PlausibleHeart.accepts(rr: rr) {
                return Entry(time: time, event: .rr(seconds: rr), line: line)
            } else {
                reject(&rejections, Rejection(place: "\(path):\(line)", message: "RR \(valueText) s rejected (allowed: 0.24…2.4 s)"))
            }
        case "time,ppg":
            let sample = try number(valueText, "ppg")
            guard OutsideNumber.isPlausible(sample) else { throw InputError(file: path, line: line, "ppg '\(valueText)' is not a finite number of sensible size") }
            return Entry(time: time, event: .ppg(sample), line: line)
        case "time,lx,ly,rx,ry":
            let values = try fields.dropFirst().map { Float(try number($0, "position")) }
            guard values.allSatisfy({ OutsideNumber.isPlausible(Double($0)) }) else {
                throw InputError(file: path, line: line, "a position is not a finite number of sensible size")
            }
            return Entry(time: time, event: .pose(leftX: values[0], leftY: values[1], rightX: values[2], rightY: values[3]), line: line)
        default:
            let values = try fields.dropFirst().map { Float(try number($0, "band power")) }
            guard values.allSatisfy({ $0.isFinite && (0...1).contains($0) }) else {
                throw InputError(file: path, line: line, "band powers are numbers in 0…1")
            }
            return Entry(time: time, event: .bands(alpha: values[0], beta: values[1], delta: values[2], theta: values[3], gamma: values[4]),
                         line: line)
        }
        return nil
    }

    // MARK: HealthKit JSON

    public static func parseHealthKit(data: Data, path: String) throws -> HeartSession {
        let export: HealthKitSchema.Document
        do {
            export = try JSONDecoder().decode(HealthKitSchema.Document.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, path: path, data: data)
        }
        var dated: [(date: Date, value: Double, index: Int)] = []
        for (index, item) in export.items.enumerated() {
            guard let date = parseDate(item.startDate) else {
                throw InputError(file: path, line: lineOfItem(index, in: data), field: "items[\(index)].startDate",
                                 "'\(item.startDate)' is not a date like 2015-10-08T22:53:59-0700")
            }
            if let unit = item.unit, unit != HealthKitSchema.unit {
                throw InputError(file: path, line: lineOfItem(index, in: data), field: "items[\(index)].unit",
                                 "unit '\(unit)' is not \(HealthKitSchema.unit)")
            }
            dated.append((date, item.value, index))
        }
        guard let start = dated.map(\.date).min() else {
            throw InputError(file: path, field: "items", "the export has no heart-rate samples")
        }
        var entries: [Entry] = []
        var rejections: (kept: [Rejection], count: Int) = ([], 0)
        for sample in dated {
            let place = "\(path): items[\(sample.index)]"
            let time = sample.date.timeIntervalSince(start)
            guard time <= maximumSeconds else {
                throw InputError(file: path, line: lineOfItem(sample.index, in: data), field: "items[\(sample.index)].startDate",
                                 "\(Int(time / 3600)) h after the first sample: a session lasts at most 24 h (a wrong year?)")
            }
            if PlausibleHeart.accepts(bpm: sample.value) {
                entries.append(Entry(time: time, event: .tempo(bpm: sample.value),
                                     line: sample.index))
            } else {
                reject(&rejections, Rejection(place: place,
                                            message: "bpm \(sample.value) rejected (a heart beats 25…250 times a minute)"))
            }
        }
        return HeartSession(path: path, entries: ordered(entries), rejections: rejections.kept, rejectedCount: rejections.count)
    }

    /// Counts a rejection; keeps only the first ones (10 M bad rows must not take 10 M strings).
    private static func reject(_ rejections: inout (kept: [Rejection], count: Int), _ rejection: @autoclosure () -> Rejection) {
        rejections.count += 1
        if rejections.kept.count < keptRejections { rejections.kept.append(rejection()) }
    }

    private static func ordered(_ entries: [Entry]) -> [Entry] {
        entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    static func parseDate(_ text: String) -> Date? {
        for format in HealthKitSchema.dateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// The 1-based line on which item `index` of the `items` array starts (best effort).
    private static func lineOfItem(_ index: Int, in data: Data) -> Int? {
        guard let text = String(data: data, encoding: .utf8), let itemsKey = text.range(of: "\"items\"") else { return nil }
        var depth = 0, seen = -1, line = text[..<itemsKey.lowerBound].filter { $0 == "\n" }.count + 1
        var inString = false, escaped = false
        for character in text[itemsKey.upperBound...] {
            if character == "\n" { line += 1 }
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true
            case "[", "{":
                depth += 1
                if character == "{" && depth == 2 {
                    seen += 1
                    if seen == index { return line }
                }
            case "]", "}":
                depth -= 1
                if depth == 0 { return nil }
            default: break
            }
        }
        return nil
    }

    private static func describe(_ error: DecodingError, path: String, data: Data) -> InputError {
        func fieldName(_ path: [CodingKey]) -> String {
            path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
                .joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        func line(_ path: [CodingKey]) -> Int? {
            guard path.count >= 2, path[0].stringValue == "items", let index = path[1].intValue else { return nil }
            return lineOfItem(index, in: data)
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = context.codingPath
            return InputError(file: path, line: line(at), field: fieldName(at + [key]), "missing")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return InputError(file: path, line: line(context.codingPath), field: fieldName(context.codingPath),
                              "expected \(type == Double.self ? "a number" : type == String.self ? "a string" : "\(type)")")
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return InputError(file: path, field: context.codingPath.isEmpty ? nil : fieldName(context.codingPath),
                              "not valid JSON: \(underlying ?? context.debugDescription)")
        @unknown default:
            return InputError(file: path, "\(error)")
        }
    }
}
