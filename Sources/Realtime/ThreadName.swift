import CProcessThread
import Foundation

/// Every thread of pulsejack says what it is in `top -H`, `ps -L` and a debugger: `pj-osc`,
/// `pj-view`, … (README, "Threads"). At most 15 bytes: the kernel keeps no more.
public enum ThreadName {
    /// Names the calling thread.
    public static func set(_ name: String) {
        precondition(name.utf8.count <= 15, "thread name \(name) is longer than 15 bytes")
        pj_name_thread(name)
    }

    /// Real-time safe. Names the calling thread `pj-process` (one prctl, which never waits; no
    /// Swift string is made).
    public static func setProcess() { pj_name_process_thread() }
}

extension ThreadName {
    /// Control thread. The threads of this process, but the main one, that carry no name of their
    /// own (the process's), by id.
    public static func unnamed() -> Set<Int32> {
        let own = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8)) ?? ""
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.compactMap { task -> Int32? in
            guard let id = Int32(task), id != getpid(),
                  (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) == own else { return nil }
            return id
        })
    }

    /// Control thread. Names the unnamed threads that were not there in `before`: those a library
    /// just started for us (libjack's, which it gives no name), through /proc/self/task/ID/comm.
    public static func nameNew(since before: Set<Int32>, _ name: String) {
        for id in unnamed().subtracting(before) {
            try? name.write(toFile: "/proc/self/task/\(id)/comm", atomically: false, encoding: .utf8)
        }
    }
}
