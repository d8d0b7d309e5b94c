import Foundation
import Realtime

/// How long a live run's control thread sleeps between ticks, and on what: its doorbell (rung by
/// whoever made it work), beside other descriptors (the stop signals' doorbell, the cycles'
/// deadline, the session manager's socket, a hosted CLAP plugin's), until its next timer if it has
/// one — the soonest of a heart's dropout check and a CLAP plugin's timer (`due`), the server watch each second while it needs ticks (`ServerWatch.needsTicks`),
/// every 100 ms while something needs a closer watch. At rest it has none. Control thread.
enum ControlWait {
    /// The tick while something needs a close watch (a plugin's child process, a mood DJ's next
    /// track, a reconnection under way).
    static let closeWatchSeconds = 0.1

    static func sleep(on bell: Doorbell, besides descriptors: [Int32], closeWatch: Bool, watchTicks: Bool, due: Double?) {
        var seconds: Double? = closeWatch ? closeWatchSeconds : watchTicks ? ServerWatch.interval : nil
        if let due { seconds = min(seconds ?? .infinity, max(0, due - MonotonicClock.seconds) + 0.002) }
        bell.wait(orReadable: descriptors, seconds: seconds)
    }
}
