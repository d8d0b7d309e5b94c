import Foundation
import Inputs
import Realtime

/// liblsl's log lines as pulsejack's own: liblsl (loguru) writes its log to a file the
/// configuration names (`LSLConfiguration`), here the write end of a pipe (`/proc/self/fd/N`,
/// opened again by liblsl); one thread reads the other end and says each warning or error as
/// `pulsejack: LSL: …` (liblsl's time, thread and source-file columns left out), at most once a
/// second for each kind. The thread lives as long as the process, as liblsl's own do.
enum LSLLogRelay {
    /// Starts the reader; the path liblsl is to write to, or nil when no pipe could be made.
    static func start(say: @escaping @Sendable (String) -> Void) -> String? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        let (reading, writing) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let limiter = WarningLimiter()
        let thread = Thread {
            ThreadName.set("pj-lsl-log")
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reading, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    if let message = message(line), let admitted = limiter.admit("pulsejack: LSL: " + message) { say(admitted) }
                }
            }
        }
        thread.start()
        return "/proc/self/fd/\(writing)"
    }

    /// What a loguru line says, without its columns (`date time ( uptime ) [thread] file:line LEVEL| message`):
    /// "liblsl warning: …", "liblsl error: …", "liblsl: …"; nil for the file's preamble.
    static func message(_ line: String) -> String? {
        guard let bar = line.range(of: "| ") else { return nil }
        let level = line[..<bar.lowerBound].split(separator: " ").last.map(String.init) ?? ""
        let text = line[bar.upperBound...].trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        switch level {
        case "WARN": return "liblsl warning: " + text
        case "ERR", "FATL": return "liblsl error: " + text
        case "INFO": return "liblsl: " + text
        default: return Int(level) != nil ? "liblsl: " + text : nil
        }
    }
}
