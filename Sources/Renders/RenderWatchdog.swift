import Atomics
import Foundation
import Engine
import Realtime

/// A render's watchdog: a thread that watches the engine's periods go by. When none has passed
/// for `seconds` (a plugin stuck in its run: an offline render has no period to miss), or for a
/// second after a stop was asked for (SIGTERM, which the render loop only sees between periods),
/// it names the plugin that is running, and the process exits: 70 when stuck, 128 + the signal
/// when stopped. The WAV file's header is kept current as it is written (`WavWriter`), so the
/// file holds the audio up to its last second.
///
/// The stall is the time this process ran (`RunningTime`), not the clock's: a machine paused or
/// suspended mid-render stops the render thread with the watchdog, and on waking the watchdog
/// may look before the render thread has run at all. That pause is nobody's stall.
final class RenderWatchdog: Sendable {
    private let done = ManagedAtomic<Bool>(false)
    /// How often it looks, and the most one look counts (five looks' worth: a look later than
    /// that means the process did not run in between).
    static let lookMicroseconds: UInt32 = 100_000
    static let longestLook = 0.5

    init(handle: EngineHandle, seconds: Double, finish: LockedBox<(@Sendable () -> Void)?>, stopSignal: @escaping @Sendable () -> Int32?) {
        let done = done
        let thread = Thread {
            ThreadName.set("pj-watchdog")
            var periods = handle.counters.value(.periods)
            var stall = RunningTime(longestStep: Self.longestLook)
            while !done.load(ordering: .relaxed) {
                usleep(Self.lookMicroseconds)
                let now = handle.counters.value(.periods)
                if now != periods {
                    periods = now
                    stall.restart()
                    continue
                }
                let stalled = stall.look()
                let signal = stopSignal()
                guard stalled > seconds || (signal != nil && stalled > 1), !done.load(ordering: .relaxed) else { continue }
                let running = handle.pluginsRunning()
                let who = running.isEmpty ? "the engine" : "plugin \(running.joined(separator: ", "))"
                let line = signal.map { "pulsejack: render: stopped by signal \($0) while \(who) had not returned for \(String(format: "%.1f", stalled)) s; the file holds what was rendered\n" }
                    ?? "pulsejack: render: \(who) has not returned for \(String(format: "%.1f", stalled)) s (the watchdog's limit is \(seconds) s): stopping; the file holds what was rendered\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
                finish.withLockedValue { $0 }?()
                _exit(signal.map { 128 + $0 } ?? 70)
            }
        }
        thread.start()
    }

    /// The render is over.
    func stop() { done.store(true, ordering: .relaxed) }
}
