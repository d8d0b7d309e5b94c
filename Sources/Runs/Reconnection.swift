import Foundation
import Realtime

/// Retrying a server that went away: 0.5 s, doubling to at most 5 s between attempts. Control thread.
struct Reconnection {
    private(set) var isWaiting = false
    private(set) var attempts = 0
    /// When the next attempt is due (`MonotonicClock` seconds).
    private var next = MonotonicClock.seconds
    private var lastError = ""
    /// Connections to remake once back (those whose other end is not there yet stay pending).
    var pending: [(String, String)] = []

    var due: Bool { MonotonicClock.seconds >= next }

    mutating func begin(connections: [(String, String)]) {
        isWaiting = true
        attempts = 0
        pending = connections
        next = MonotonicClock.seconds + 0.5
    }

    /// The warning to give, when the error differs from the last one said.
    mutating func failed(_ error: Error) -> String? {
        attempts += 1
        let message = "\(error)"
        defer { next = MonotonicClock.seconds + min(5, 0.5 * pow(2, Double(min(attempts, 4)))) }
        guard message != lastError else { return nil }
        lastError = message
        return "reconnecting: \(message); retrying"
    }

    mutating func succeeded() {
        attempts += 1
        isWaiting = false
        lastError = ""
    }
}
