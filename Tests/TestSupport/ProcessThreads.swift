import Foundation

/// Another process's threads as /proc shows them: each one's name and its voluntary context
/// switches (its wake-ups so far).
public enum ProcessThreads {
    public static func of(_ pid: pid_t) -> [(name: String, wakeups: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8),
                  let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
                  let count = Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") else { return nil }
            return (name.trimmingCharacters(in: .newlines), count)
        }
    }
}
