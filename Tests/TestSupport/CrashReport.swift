import Foundation

/// What a process that died of a signal printed about it, in one line: the last lines before
/// Swift's backtracer took over (where glibc, PipeWire or the Swift runtime say why they
/// aborted: the backtracer's frame-pointer unwinding stops inside libc's abort, so the frames
/// alone never say), the crash, and the crashed thread's name and first frames.
///
/// CI's summary of a failed run shows only the first line of each failure: a test that puts this
/// first in a message about a crashed run shows there which thread died and why.
public enum CrashReport {
    /// The one line for a run that died of `signal`, from everything it printed.
    public static func line(signal: Int32, printed: String) -> String {
        let lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let said = "died of signal \(signal) (\(String(cString: strsignal(signal))))"
        guard let backtrace = lines.firstIndex(where: { $0.hasPrefix("*** Signal ") }) else {
            return "\(said); its last lines: " + lines.filter { !$0.isEmpty }.suffix(4).joined(separator: " ⏎ ")
        }
        let before = lines[..<backtrace].filter { !$0.isEmpty }.suffix(4)
        var parts = ["\(said); before the backtrace: " + before.joined(separator: " ⏎ ")]
        if let crash = lines[backtrace...].first(where: { $0.hasPrefix("*** Program crashed") }) { parts.append(crash) }
        if let thread = lines[backtrace...].firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") }) {
            let frames = lines[(thread + 1)...].prefix { !$0.hasPrefix("Thread ") && !$0.hasPrefix("Registers") }
                .filter { !$0.isEmpty }.prefix(6)
            parts.append(([lines[thread]] + frames).joined(separator: " | "))
        }
        return parts.joined(separator: "; ")
    }
}
