import Atomics
import Dispatch
import Foundation
import Glibc
import Realtime

/// SIGINT, SIGTERM and SIGHUP as a request to stop: `run` and `render` finish what they hold
/// (a summary, a closed WAV file) instead of dying mid-write. SIGHUP (a closed terminal or SSH
/// session) is treated like SIGTERM. A second stop signal, while the first one's stop is still
/// under way, exits at once (status 128 + its number), saying so in one line: the files are
/// finished first in a stop, so what the first signal began has usually saved them already.
public final class StopSignals: Sendable {
    private let received = ManagedAtomic<Int32>(0)
    /// Rung by the first stop signal: the run's loop sleeps on it beside its other work.
    public let doorbell = Doorbell()
    /// Kept alive for as long as this is; Dispatch's sources are not marked Sendable.
    private let sources: LockedBox<[DispatchSourceSignal]>

    public init(_ numbers: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        var sources: [DispatchSourceSignal] = []
        let received = received, doorbell = doorbell
        for number in numbers {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged {
                    doorbell.ring()
                } else {
                    Self.exitAtOnce(number)
                }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = LockedBox(sources)
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
