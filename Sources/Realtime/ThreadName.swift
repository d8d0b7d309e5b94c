import CProcessThread
import Foundation

/// Every thread of pulsejack says what it is in `top -H`, `ps -L` and a debugger: `pj-osc`,
/// `pj-view`, … (docs/architecture.md, "Threads"). At most 15 bytes: the kernel keeps no more.
public enum ThreadName {
    /// Names the calling thread.
    public static func set(_ name: String) {
        precondition(name.utf8.count <= 15, "thread name \(name) is longer than 15 bytes")
        pj_name_thread(name)
    }

    /// Real-time safe. Names the calling thread `pj-process` (one prctl, which never waits; no
    /// Swift string is made) and returns its id (for `restoreProcess`).
    @discardableResult
    public static func setProcess() -> Int32 { pj_name_process_thread() }

    /// Control thread. Names the thread `id` `pj-process` again (`nameNew` can rename a process
    /// thread that named itself between its look and its renaming).
    public static func restoreProcess(_ id: Int32) { rename(id, "pj-process") }
}

extension ThreadName {
    /// Control thread. The threads of this process, but the main one, that carry no name of their
    /// own (the process's), by id.
    public static func unnamed() -> Set<Int32> {
        var threads = threads(named: (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8)) ?? "")
        threads.remove(getpid())
        return threads
    }

    /// Control thread. Names the unnamed threads that were not there in `before`: those a library
    /// just started for us (libjack's, which it gives no name), through /proc/self/task/ID/comm.
    public static func nameNew(since before: Set<Int32>, _ name: String) {
        for id in unnamed().subtracting(before) { rename(id, name) }
    }

    /// Not the process thread. Runs `body`, and names `name` each thread it started (a library's
    /// workers that carry no name of their own: zita-convolver's): a new thread inherits the name
    /// of the thread that made it, so the new ones are those with the calling thread's name.
    public static func naming<T>(_ name: String, threadsStartedBy body: () throws -> T) rethrows -> T {
        let callers = threads(named: own())
        let result = try body()
        for id in threads(named: own()).subtracting(callers) { rename(id, name) }
        return result
    }

    private static func rename(_ id: Int32, _ name: String) {
        try? name.write(toFile: "/proc/self/task/\(id)/comm", atomically: false, encoding: .utf8)
    }

    /// The calling thread's name.
    private static func own() -> String { (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "" }

    /// This process's threads named `name` (as /proc/…/comm reads, with its newline), by id.
    static func threads(named name: String) -> Set<Int32> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.compactMap { task -> Int32? in
            guard let id = Int32(task), (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) == name else { return nil }
            return id
        })
    }
}
