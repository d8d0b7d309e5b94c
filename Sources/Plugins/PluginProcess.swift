import Atomics
import CProcessThread
import Foundation
import UserFiles
import Realtime
import Synchronization

/// An isolated plugin's child process (`pulsejack plugin-host`), seen from the engine: the child
/// instantiates and runs the plugin; the engine's process thread hands it each run through shared
/// memory (`PluginRegion`) and waits for it at most `deadlineNanoseconds`.
///
/// Why a wait is acceptable on the process thread: it is bounded, it is a futex on a word in
/// memory both map (no lock another thread of ours holds, no allocation), and it is how JACK
/// itself drives its clients and Carla its bridges. The bound is the period's, not each
/// plugin's: all isolated plugins together wait at most until half the period has passed since
/// it began (`beginPeriod`), so two hung plugins cannot add up past the period. A child that does
/// not answer in time costs its own voice, never the period: the run returns and the voice is
/// silent (an insert dry); a run that finds the period's budget spent is skipped, not failed.
///
/// Where it stands (`phase`): the process thread moves `starting` to `ready` once the child says
/// so, `ready` to `running` and back around a run, and `running` to `failed` on a missed
/// deadline; a control thread moves `ready` or `starting` to `failed` when the child died, and
/// `failed` to `starting` when it starts a new one (`supervise`).
///
/// Shared by the process thread and the control threads, checked by the compiler: what the
/// process thread touches is atomic or fixed, and the control threads' own state (the child, its
/// pipes, the restart timing) is `supervision`, behind a lock that debug builds refuse on the
/// process thread.
package final class PluginProcess: Sendable {
    enum Phase: Int { case starting, ready, running, failed }

    /// What the child is asked to host.
    package struct Plugin: Sendable {
        var uri: String
        var sampleRate: Int
        var maxFrames: Int
        var offline: Bool
        /// Where it keeps the files it makes (`state:makePath`).
        var filesFolder: String?
    }

    let plugin: Plugin
    let region: PluginRegion
    private let memory: Int32
    /// How long a run may take: half a period live; offline, where time is no limit, long
    /// enough for a loaded machine and short of the render's watchdog.
    let deadlineNanoseconds: Int
    let phase = ManagedAtomic<Int>(Phase.starting.rawValue)
    /// Set by the process thread when a run missed its deadline (the control thread says so).
    let missedDeadline = ManagedAtomic<Bool>(false)
    /// Children started after the first.
    package let restarts = ManagedAtomic<Int>(0)
    /// Runs the child answered in time.
    package let answered = ManagedAtomic<Int>(0)

    /// A descriptor readable once the child has ended (a pidfd): the process thread looks when an
    /// answer is late, so a dead child costs one slice of the wait, not the whole deadline.
    /// Replaced only while the phase is `failed` (the process thread does not run then).
    private let childEnded = Atomic<Int32>(-1)

    /// The control threads' own: the child, its pipes, when it started and how long to wait before
    /// the next. Every control-thread entry point takes the lock once and hands it down.
    private struct Supervision {
        /// The saved state the next child restores (the preset's, or the last save); nil: the plugin's default.
        var stateFolder: String?
        var child: pid_t = 0
        var commands: Int32 = -1, replies: Int32 = -1
        /// When the child was started (`MonotonicClock` seconds).
        var startedAt = -Double.infinity
        /// Seconds to wait before the next start: 0 after a child that lived `grownUp` seconds,
        /// doubling (0.5 s to 8 s) for one that died younger (a plugin that crashes in
        /// `instantiate` is not restarted in a loop).
        var backoff = 0.0
        var failedEarlier: String?
        /// When this control thread first saw the current failure (nil: none, or the child is back).
        var failedAt: Double?
        var childWasReady = false
    }
    private let supervision = LockedBox(Supervision())
    private static let grownUp = 1.0

    /// Control thread. The saved state the next child restores (the preset's, or the last save).
    var stateFolder: String? {
        get { supervision.withLockedValue { $0.stateFolder } }
        set { supervision.withLockedValue { $0.stateFolder = newValue } }
    }

    /// The executable the child runs: this one when it is `pulsejack`, else the `pulsejack`
    /// beside it (a test bundle, the bench), or `PULSEJACK_EXECUTABLE`.
    package static let executable: String = {
        if let given = ProcessInfo.processInfo.environment["PULSEJACK_EXECUTABLE"], !given.isEmpty { return given }
        let me = Installation.executable
        return me.lastPathComponent == "pulsejack" ? me.path : me.deletingLastPathComponent().appendingPathComponent("pulsejack").path
    }()

    /// Control thread. The shared memory for a plugin with `portCount` ports; no child yet.
    init(plugin: Plugin, portCount: Int) throws {
        self.plugin = plugin
        let bytes = PluginRegion.bytes(portCount: portCount, maxFrames: plugin.maxFrames)
        memory = pj_shared_memory("pulsejack-plugin")
        guard memory >= 0, ftruncate(memory, off_t(bytes)) == 0,
              let base = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0), base != MAP_FAILED else {
            let reason = String(cString: strerror(errno))
            if memory >= 0 { close(memory) }
            throw PluginError("\(plugin.uri): no shared memory for its process (\(reason))")
        }
        region = PluginRegion(base: base, portCount: portCount, maxFrames: plugin.maxFrames)
        region.format()
        let period = Double(plugin.maxFrames) / Double(plugin.sampleRate)
        deadlineNanoseconds = plugin.offline ? 1_000_000_000 : Int(period * 0.5 * 1e9)
    }

    deinit {
        stop()
        let ended = childEnded.load(ordering: .acquiring)
        if ended >= 0 { close(ended) }
        munmap(region.base, region.bytes)
        close(memory)
    }

    // MARK: - The process path

    /// Real-time safe. Claims the region for a run: false when the child is not there (the
    /// caller plays its dry or silent fallback and leaves the region alone, which a control
    /// thread may be preparing for a new child). After true, `run` must follow.
    func claim() -> Bool {
        if phase.load(ordering: .relaxed) == Phase.starting.rawValue && region.ready.load(ordering: .acquiring) == 1 {
            _ = phase.compareExchange(expected: Phase.starting.rawValue, desired: Phase.ready.rawValue, ordering: .acquiringAndReleasing)
        }
        return phase.compareExchange(expected: Phase.ready.rawValue, desired: Phase.running.rawValue, ordering: .acquiringAndReleasing).exchanged
    }

    /// Real-time safe. One run of `frames` frames, claimed and the inputs in the region: posts it
    /// and waits at most the deadline. False when the child did not answer in time (then it is
    /// marked failed, and the caller plays its fallback).
    func run(frames: Int) -> Bool {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var deadline = deadlineNanoseconds
        let left = Self.periodEnd.load(ordering: .relaxed) - (start.tv_sec * 1_000_000_000 + start.tv_nsec)
        // Offline, or run outside an engine's period (a period over a second ago: none now), the
        // plugin's own deadline alone.
        if !plugin.offline && left > -1_000_000_000 {
            if left < Self.leastBudget.load(ordering: .relaxed) {
                skipped.wrappingIncrement(ordering: .relaxed)
                phase.store(Phase.ready.rawValue, ordering: .releasing)
                return false
            }
            deadline = min(deadline, left)
        }
        let number = region.request.load(ordering: .relaxed) &+ 1
        region.priority.store(UInt32(Self.enginePriority.load(ordering: .relaxed)), ordering: .relaxed)
        region.frames.store(UInt32(frames), ordering: .relaxed)
        region.request.store(number, ordering: .releasing)
        region.wake(.request)
        // Bounded by the deadline: each pass waits for the rest of it, or sees the answer.
        // Offline, a pass counts at most `longestOfflinePass` (`RunningTime`): one far longer
        // than its slice is time this process did not run (the machine paused), not the child's.
        var waited = RunningTime(longestStep: plugin.offline ? Self.longestOfflinePass : .infinity,
                                 now: Double(start.tv_sec) + Double(start.tv_nsec) * 1e-9)
        while true {
            let done = region.done.load(ordering: .acquiring)
            if done == number {
                answered.wrappingIncrement(ordering: .relaxed)
                phase.store(Phase.ready.rawValue, ordering: .releasing)
                return true
            }
            let elapsed = Int(waited.look() * 1e9)
            let ended = elapsed > 0 && pj_pidfd_exited(childEnded.load(ordering: .acquiring)) != 0
            if elapsed >= deadline || ended {
                if !ended { missedDeadline.store(true, ordering: .relaxed) }
                phase.store(Phase.failed.rawValue, ordering: .releasing)
                return false
            }
            region.wait(on: .done, whileItIs: done, nanoseconds: min(deadline - elapsed, Self.slice))
        }
    }

    /// Live: when this period's waits must end (CLOCK_MONOTONIC nanoseconds; 0: no period yet).
    private static let periodEnd = Atomic<Int>(0)
    /// The least budget left for a run to be posted: an eighth of the period (a run posted with
    /// less would fail its child for another's delay; it is skipped instead).
    private static let leastBudget = Atomic<Int>(0)

    /// Control thread, before activation. The statics the process thread reads, initialised
    /// here: a static's first read runs its initialiser (swift_once) on the reading thread.
    package static func prepare() {
        _ = periodEnd.load(ordering: .relaxed) + leastBudget.load(ordering: .relaxed)
            + enginePriority.load(ordering: .relaxed) + periodsUntilPriority.load(ordering: .relaxed) + slice + Int(longestOfflinePass)
    }

    /// Real-time safe. At each period's start where the engine renders: isolated plugins may wait
    /// for their children until half of it has passed.
    package static func beginPeriod(frames: Int, sampleRate: Int) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let period = frames * 1_000_000_000 / max(sampleRate, 1)
        periodEnd.store(now.tv_sec * 1_000_000_000 + now.tv_nsec + period / 2, ordering: .relaxed)
        leastBudget.store(period / 8, ordering: .relaxed)
        // This thread's real-time priority, now and then (a system call that does not wait).
        if periodsUntilPriority.wrappingSubtract(1, ordering: .relaxed).newValue <= 0 {
            periodsUntilPriority.store(4096, ordering: .relaxed)
            var policy: Int32 = 0
            var parameters = sched_param()
            if pthread_getschedparam(pthread_self(), &policy, &parameters) == 0 {
                enginePriority.store(policy == SCHED_FIFO || policy == SCHED_RR ? Int(parameters.sched_priority) : 0, ordering: .relaxed)
            }
        }
    }

    /// The engine's process thread's real-time priority (0: none), for the children.
    private static let enginePriority = Atomic<Int>(0)
    private static let periodsUntilPriority = Atomic<Int>(0)

    /// Runs skipped because the period's budget was spent when they came.
    package let skipped = ManagedAtomic<Int>(0)

    /// The longest a run waits before it looks whether the child is still there.
    private static let slice = 2_000_000
    /// Offline, the most one pass of a run's wait counts against the child's deadline, in
    /// seconds (fifty slices).
    private static let longestOfflinePass = 0.1

    /// Real-time safe. Whether runs reach the child now.
    package var isPlaying: Bool {
        let now = phase.load(ordering: .relaxed)
        return now == Phase.ready.rawValue || now == Phase.running.rawValue
            || (now == Phase.starting.rawValue && region.ready.load(ordering: .relaxed) == 1)
    }

    // MARK: - The control thread

    /// Starts a child and waits until it is ready (at most `timeout` seconds); nil when it is,
    /// else why not (it stays failed, and `supervise` tries again).
    func start(waiting timeout: Double) -> String? {
        supervision.withLockedValue { start(&$0, waiting: timeout) }
    }

    private func start(_ state: inout Supervision, waiting timeout: Double) -> String? {
        if let problem = spawn(&state) {
            phase.store(Phase.failed.rawValue, ordering: .releasing)
            return problem
        }
        // The time this process ran: a pause of the machine is not the child's slowness.
        var waited = RunningTime(longestStep: 0.5)
        while waited.look() < timeout {
            if region.ready.load(ordering: .acquiring) == 1 {
                state.childWasReady = true
                return nil
            }
            if let ended = reap(&state) {
                phase.store(Phase.failed.rawValue, ordering: .releasing)
                return ended
            }
            region.wait(on: .ready, whileItIs: 0, nanoseconds: 20_000_000)
        }
        stop(&state)
        phase.store(Phase.failed.rawValue, ordering: .releasing)
        return "it was not ready after \(timeout.plainText) s"
    }

    /// What `supervise` saw.
    package enum Turn: Equatable {
        /// The child failed (why); a new one is starting, or will after a pause.
        case failed(String)
        /// A new child is ready and playing, this long after the failure was seen.
        case back(milliseconds: Int)
    }

    /// Control thread, about every 100 ms: a child that died or missed its deadline is stopped
    /// and replaced by a new one restoring the plugin's last state, at once unless it keeps dying
    /// young. What happened, if anything.
    package func supervise() -> [Turn] {
        supervision.withLockedValue { supervise(&$0) }
    }

    private func supervise(_ state: inout Supervision) -> [Turn] {
        var turns: [Turn] = []
        if state.child != 0, let ended = reap(&state) {
            // Dead while idle or while starting: failed (a run under way finds out by its deadline).
            _ = phase.compareExchange(expected: Phase.ready.rawValue, desired: Phase.failed.rawValue, ordering: .acquiringAndReleasing)
            _ = phase.compareExchange(expected: Phase.starting.rawValue, desired: Phase.failed.rawValue, ordering: .acquiringAndReleasing)
            if phase.load(ordering: .acquiring) == Phase.failed.rawValue { turns.append(.failed(ended)) } else { state.failedEarlier = ended }
        }
        guard phase.load(ordering: .acquiring) == Phase.failed.rawValue else {
            // A failure seen and the phase no longer failed: a new child started; back once it plays.
            if let failedAt = state.failedAt, isPlaying {
                state.failedAt = nil
                state.childWasReady = true
                turns.append(.back(milliseconds: Int(((MonotonicClock.seconds - failedAt) * 1000).rounded())))
            }
            return turns
        }
        if state.failedAt == nil { state.failedAt = MonotonicClock.seconds }
        if state.child != 0 {
            // Alive but failed: it hung or missed its deadline — or is still dying of a crash,
            // which it is given a moment to finish, so the log says which.
            var ended: String?
            for _ in 0..<10 where ended == nil {
                usleep(5_000)
                ended = reap(&state)
            }
            let missed = missedDeadline.exchange(false, ordering: .relaxed)
            stop(&state)
            let late = "it missed its deadline (\(String(format: "%.2f", Double(deadlineNanoseconds) / 1e6)) ms or its period's share): hung or too slow"
            turns.append(.failed(ended ?? (missed ? late : "it stopped answering")))
        } else if let earlier = state.failedEarlier {
            state.failedEarlier = nil
            turns.append(.failed(earlier))
        }
        // Offline, time is the render's: the new child is waited for, so a restart costs the same
        // periods whatever the machine's load (one that never got ready waits its turn: it never
        // sounds, and is not started in a loop).
        // A child that lived a second is replaced at once (at most one start a second); one
        // that died younger waits its backoff.
        let lived = (state.failedAt ?? MonotonicClock.seconds) - state.startedAt
        guard (plugin.offline && state.childWasReady) || lived >= Self.grownUp || MonotonicClock.seconds - state.startedAt >= state.backoff
        else { return turns }
        state.backoff = lived < Self.grownUp ? min(max(state.backoff * 2, 0.5), 8) : 0
        missedDeadline.store(false, ordering: .relaxed)
        let problem = plugin.offline ? start(&state, waiting: 10) : spawn(&state)
        restarts.wrappingIncrement(ordering: .relaxed)
        if let problem { turns.append(.failed(problem)) }
        return turns
    }

    /// A new child on a fresh region header; `phase` is `starting` when it is under way.
    private func spawn(_ state: inout Supervision) -> String? {
        stop(&state)
        region.format()
        var commandPipe: [Int32] = [-1, -1], replyPipe: [Int32] = [-1, -1]
        guard pj_pipe(&commandPipe) == 0 else { return "no pipe (\(String(cString: strerror(errno))))" }
        guard pj_pipe(&replyPipe) == 0 else {
            close(commandPipe[0]); close(commandPipe[1])
            return "no pipe (\(String(cString: strerror(errno))))"
        }
        var arguments = [Self.executable, "plugin-host", "--region", "/proc/\(getpid())/fd/\(memory)", "--uri", plugin.uri,
                         "--rate", String(plugin.sampleRate)]
        if plugin.offline { arguments.append("--offline") }
        if let stateFolder = state.stateFolder { arguments += ["--state", stateFolder] }
        if let filesFolder = plugin.filesFolder { arguments += ["--files", filesFolder] }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, commandPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, replyPipe[1], 1)
        let argv = arguments.map { strdup($0) } + [nil]
        // Without Swift's backtracer: a crash ends the child at once (its report would hold it
        // for a second, past its deadline), and the engine names the signal.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv + envp { free(argument) }
            posix_spawn_file_actions_destroy(&actions)
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, Self.executable, &actions, nil, argv, envp)
        close(commandPipe[0])
        close(replyPipe[1])
        guard status == 0 else {
            close(commandPipe[1]); close(replyPipe[0])
            return "\(Self.executable) could not be started (\(String(cString: strerror(status))))"
        }
        state.child = pid
        state.childWasReady = false
        let ended = childEnded.exchange(pj_pidfd_open(pid), ordering: .acquiringAndReleasing)
        if ended >= 0 { close(ended) }
        state.commands = commandPipe[1]
        state.replies = replyPipe[0]
        state.startedAt = MonotonicClock.seconds
        phase.store(Phase.starting.rawValue, ordering: .releasing)
        return nil
    }

    /// The child's end, if it has ended: how.
    private func reap(_ state: inout Supervision) -> String? {
        guard state.child != 0 else { return nil }
        var status: Int32 = 0
        guard waitpid(state.child, &status, WNOHANG) == state.child else { return nil }
        state.child = 0
        closePipes(&state)
        let signal = status & 0x7F
        if signal != 0 { return "it crashed (signal \(signal), \(String(cString: strsignal(signal))))" }
        return "it exited with status \((status >> 8) & 0xFF)"
    }

    /// Stops the child now (SIGKILL: it may be stuck in plugin code), if there is one.
    func stop() {
        supervision.withLockedValue { stop(&$0) }
    }

    private func stop(_ state: inout Supervision) {
        guard state.child != 0 else { return }
        kill(state.child, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(state.child, &status, 0)
        state.child = 0
        closePipes(&state)
    }

    private func closePipes(_ state: inout Supervision) {
        if state.commands >= 0 { close(state.commands) }
        if state.replies >= 0 { close(state.replies) }
        state.commands = -1
        state.replies = -1
    }

    /// Control thread. Whether a child is there to answer a save.
    var canSave: Bool { supervision.withLockedValue { canSave($0) } }

    private func canSave(_ state: Supervision) -> Bool { state.child != 0 && isPlaying && state.commands >= 0 }

    /// Control thread. Asks the child to save the plugin's state into `folder` (its own part;
    /// the port values are the engine's), waiting at most 5 s for its answer.
    func save(to folder: String) throws {
        try supervision.withLockedValue { try save(to: folder, $0) }
    }

    private func save(to folder: String, _ state: Supervision) throws {
        let (commands, replies) = (state.commands, state.replies)
        guard canSave(state) else {
            throw PluginError("\(plugin.uri): its process is restarting; its state cannot be saved now")
        }
        let line = "save\t\(folder)\n"
        let written = line.utf8CString.withUnsafeBufferPointer { write(commands, $0.baseAddress, $0.count - 1) }
        guard written == line.utf8.count else { throw PluginError("\(plugin.uri): its process did not take the save request") }
        var answer = [UInt8]()
        let limit = MonotonicClock.seconds + 5
        while !answer.contains(10) {
            let left = Int32(max(0, (limit - MonotonicClock.seconds) * 1000))
            var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&poller, 1, left) == 1 else { throw PluginError("\(plugin.uri): its process did not answer the save request") }
            var byte: UInt8 = 0
            guard read(replies, &byte, 1) == 1 else { throw PluginError("\(plugin.uri): its process ended during the save") }
            answer.append(byte)
        }
        let text = String(decoding: answer.dropLast(), as: UTF8.self)
        guard text == "saved" else { throw PluginError("\(plugin.uri): \(text)") }
    }
}
