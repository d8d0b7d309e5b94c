import CAllocCounter
import Foundation

/// Where the first allocation counted on a process thread came from, for a failing test's
/// message: glibc's trace of the test executable's frames is only offsets (its symbols are not
/// exported), so they are named by addr2line and demangled by swift-demangle.
public enum RealtimeAllocationTrace {
    /// The first counted allocation's call stack since the last reset, one named frame a line
    /// ("" when none was counted). Read after the counted section has ended.
    public static var first: String {
        let raw = String(cString: pj_rt_first_allocation_trace())
        guard !raw.isEmpty else { return "" }
        return "first real-time allocation at:\n" + raw.split(separator: "\n").dropFirst().map { named(String($0)) }.joined(separator: "\n")
    }

    /// One of backtrace_symbols' lines, `path(symbol+0xOFF) [0xADDR]` or `path(+0xOFF) [0xADDR]`.
    private static func named(_ line: String) -> String {
        guard let open = line.firstIndex(of: "("), let close = line[open...].firstIndex(of: ")") else { return line }
        let path = String(line[..<open])
        let inside = line[line.index(after: open)..<close]
        var symbol = ""
        if inside.hasPrefix("+0x") {
            let offset = String(inside.dropFirst())
            if let found = try? Subprocess.run("/usr/bin/addr2line", ["-f", "-e", path, offset], timeout: 10), found.status == 0 {
                symbol = String(found.stdout.split(separator: "\n").first ?? "")
            }
        } else {
            symbol = String(inside.split(separator: "+").first ?? "")
        }
        guard !symbol.isEmpty, symbol != "??" else { return line }
        return "  " + demangled(symbol) + "  (" + (path as NSString).lastPathComponent + ")"
    }

    private static func demangled(_ symbol: String) -> String {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        guard symbol.hasPrefix("$s"),
              let tool = folders.map({ "\($0)/swift-demangle" }).first(where: FileManager.default.isExecutableFile(atPath:)),
              let result = try? Subprocess.run(tool, ["--simplified", symbol], timeout: 10), result.status == 0 else { return symbol }
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.hasPrefix(symbol + " ---> ") ? String(text.dropFirst(symbol.count + 6)) : text
    }
}
