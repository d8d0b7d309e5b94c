import Foundation

/// Another process's children as /proc shows them, and the CPU time each has used.
public enum ChildProcesses {
    /// The children of `pid`, whichever of its threads started them (`/proc/PID/task/*/children`).
    public static func of(_ pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { pid_t($0) }
        }
    }

    /// The `pulsejack plugin-host` children of `pid`.
    public static func pluginHosts(of pid: pid_t) -> [pid_t] {
        of(pid).filter { child in
            FileManager.default.contents(atPath: "/proc/\(child)/cmdline").map { String(decoding: $0, as: UTF8.self).contains("plugin-host") } ?? false
        }
    }

    /// User and system CPU time of `pid`, in clock ticks (`/proc/PID/stat` fields 14 and 15).
    public static func cpuTicks(of pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
}
