import Foundation
import Realtime

/// What a log or error line may be: a few hundred characters at most (an OSC address of 60 KB,
/// or a whole file mistaken for one line, must not flood a terminal), and repeated warnings
/// at most once a second each, with a count of what was held back.
public enum LogLine {
    /// The longest line printed, in characters.
    public static let maximumLength = 300

    /// `text` cut to `limit` characters, saying how much was cut; control characters shown as '?'.
    public static func clipped(_ text: String, to limit: Int = maximumLength) -> String {
        var shown = String(text.prefix(limit).map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) ? "?" : $0 })
        let rest = text.count - limit
        if rest > 0 { shown += "… (\(rest) more characters)" }
        return shown
    }
}

/// Repeated warnings, rate-limited by kind: the first of a kind is said at once, the next no
/// sooner than `interval` later, carrying the count of those held back meanwhile. The kind is
/// the line with its numbers taken out, so "bpm nan rejected at line 7" and "… line 8" are one
/// kind. Any thread.
public final class WarningLimiter: Sendable {
    private struct Kind { var last: Double; var held: Int }
    private let kinds = LockedBox<[String: Kind]>([:])
    private let interval: TimeInterval
    /// The clock, in seconds (`MonotonicClock`: a wall clock set back would hold a kind back until it caught up).
    private let now: @Sendable () -> Double

    public init(interval: TimeInterval = 1, now: @escaping @Sendable () -> Double = { MonotonicClock.seconds }) {
        self.interval = interval
        self.now = now
    }

    /// The line to print now (clipped, with what was held back), or nil to hold it back.
    /// `kind` groups lines that differ in more than numbers (every mood change is one kind).
    public func admit(_ line: String, kind given: String? = nil) -> String? {
        let kind = given ?? String(line.prefix(80).filter { !$0.isNumber })
        let time = now()
        return kinds.withLockedValue { kinds in
            if var seen = kinds[kind] {
                guard time - seen.last >= interval else {
                    seen.held += 1
                    kinds[kind] = seen
                    return nil
                }
                kinds[kind] = Kind(last: time, held: 0)
                return LogLine.clipped(line) + (seen.held > 0 ? " (\(seen.held) more like this held back)" : "")
            }
            if kinds.count > 1000 { kinds.removeAll() }  // bounded: a flood of distinct kinds forgets old ones
            kinds[kind] = Kind(last: time, held: 0)
            return LogLine.clipped(line)
        }
    }

    /// Lines held back and not yet reported, by kind (printed at exit).
    public func heldBack() -> [(kind: String, count: Int)] {
        kinds.withLockedValue { $0 }.filter { $0.value.held > 0 }.map { ($0.key, $0.value.held) }.sorted { $0.kind < $1.kind }
    }
}
