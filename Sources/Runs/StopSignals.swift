import Atomics
import Foundation
import Glibc
import Realtime

/// SIGINT, SIGTERM and SIGHUP as a request to stop: `run` and `render` finish what they hold
/// (a summary, a closed WAV file) instead of dying mid-write. SIGHUP (a closed terminal or SSH
/// session) is treated like SIGTERM. A second stop signal, while the first one's stop is still
/// under way, exits at once (status 128 + its number), saying so in one line: the files are
/// finished first in a stop, so what the first signal began has usually saved them already.
///
/// A thread of its own (`pj-signals`) takes them, asleep in sigwaitinfo until one comes. They
/// are blocked in the thread that makes this — the first thing `run`, `render` and `study` do,
/// before any other thread exists — and so in every thread started after it: none is ever
/// interrupted by one (JACK's process thread least of all). An isolated plugin's process
/// inherits the mask, as it inherited the ignored signals before: a Ctrl-C sent to the
/// terminal's process group stops the engine, and the plugin's process ends with it.
public final class StopSignals: Sendable {
    private let received = ManagedAtomic<Int32>(0)
    /// Rung by the first stop signal: the run's loop sleeps on it beside its other work.
    public let doorbell = Doorbell()

    public init(_ numbers: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        var stops = sigset_t()
        sigemptyset(&stops)
        for number in numbers { sigaddset(&stops, number) }
        pthread_sigmask(SIG_BLOCK, &stops, nil)
        let received = received, doorbell = doorbell
        let thread = Thread { [stops] in
            ThreadName.set("pj-signals")
            var waitedFor = stops
            while true {
                let number = sigwaitinfo(&waitedFor, nil)
                guard number > 0 else { continue }  // EINTR: waits again
                if received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged {
                    doorbell.ring()
                } else {
                    Self.exitAtOnce(number)
                }
            }
        }
        thread.start()
    }

    /// A second signal: one line on stderr, then `_exit` (no atexit handlers: libjack's would
    /// wait on the server the first stop is already waiting on).
    private static func exitAtOnce(_ number: Int32) -> Never {
        let line = "pulsejack: a second stop signal (\(number)): exiting at once\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        _exit(128 + number)
    }

    /// The first stop signal received, if any.
    public var signal: Int32? {
        let number = received.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    public var stopping: Bool { signal != nil }

    /// The signal's name, for the summary line.
    public var name: String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "a signal"
        }
    }

    /// The shell's exit status for a run a signal ended: 128 + the signal's number.
    public var exitCode: Int32 { 128 + (signal ?? 0) }
}
