import Atomics
import CJack
import CLink
import Foundation
import Realtime

/// pulsejack's peer in an Ableton Link session (`run --link`): made, joined and left on the
/// control thread; its timeline captured and committed once a period by `LinkBridge` on the
/// process thread. Link's clock is CLOCK_MONOTONIC_RAW in microseconds; the JACK server's may be
/// another (PipeWire's is CLOCK_MONOTONIC), so the offset between them is measured here, back to
/// back, and published for the process thread.
public final class LinkSession: @unchecked Sendable {
    public struct Settings: Sendable, Equatable {
        /// Follow the session's tempo (`--follow-link`) rather than lead it with the heart.
        public var follows = false
        /// Beats in a bar (`--link-quantum`): a peer's downbeat is pulsejack's bar.
        public var quantum = 4.0
        /// Start and stop with the session (`--link-start-stop`), through the JACK transport.
        public var startStop = false
        public init(follows: Bool = false, quantum: Double = 4, startStop: Bool = false) {
            self.follows = follows
            self.quantum = quantum
            self.startStop = startStop
        }
    }

    let link: OpaquePointer
    public let settings: Settings
    /// Link's clock minus the JACK server's (µs), measured by `measureClockOffset`.
    let clockOffset = ManagedAtomic<Int64>(0)
    /// What the process thread publishes, and what the upkeep thread hands it.
    public let readings = LinkReadings()
    private let upkeepRunning = ManagedAtomic<Bool>(false)
    private let upkeepDone = DispatchSemaphore(value: 0)

    /// Control thread. A peer at `bpm` (Link's range, 20…999), not yet joined.
    public init(bpm: Double, settings: Settings) throws(LinkError) {
        guard let link = pj_link_create(min(max(bpm, 20), 999)) else { throw LinkError.notMade }
        self.link = link
        self.settings = settings
        pj_link_enable_start_stop_sync(link, settings.startStop)
    }

    deinit {
        stopUpkeep()
        pj_link_enable(link, false)
        pj_link_destroy(link)
    }

    /// Control thread. Starts the upkeep thread (`pj-link`): ten times a second it measures Link's
    /// clock against the server's and our outputs' playback latency for the process thread, and
    /// starts or stops the JACK transport when the session did (`--link-start-stop`).
    public func startUpkeep(client: JackClient) {
        guard !upkeepRunning.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Thread { [self] in
            ThreadName.set("pj-link")
            while upkeepRunning.load(ordering: .acquiring) {
                upkeep(client)
                usleep(100_000)
            }
            upkeepDone.signal()
        }.start()
    }

    /// Control thread. Stops the upkeep thread and waits for it.
    public func stopUpkeep() {
        guard upkeepRunning.exchange(false, ordering: .acquiringAndReleasing) else { return }
        upkeepDone.wait()
    }

    private func upkeep(_ client: JackClient) {
        guard !client.serverGone else { return }
        measureClockOffset { jack_get_time() }
        let rate = max(client.sampleRate, 1)
        readings.latencyMicros.store(Int64(client.playbackLatency) * 1_000_000 / Int64(rate), ordering: .relaxed)
        let request = readings.transportRequest.exchange(LinkReadings.none, ordering: .acquiring)
        guard request != LinkReadings.none else { return }
        _ = client.withClient { handle, _ in
            if request == LinkReadings.start { jack_transport_start(handle) } else { jack_transport_stop(handle) }
        }
    }

    /// Control thread. Joins the session: discovery starts on every interface that is up.
    public func join() { pj_link_enable(link, true) }
    public func leave() { pj_link_enable(link, false) }
    public var isJoined: Bool { pj_link_is_enabled(link) }
    /// Peers in the session besides us.
    public var peers: Int { Int(pj_link_peers(link)) }
    /// Link's clock now (µs).
    public var micros: Int64 { pj_link_micros(link) }

    /// Control thread. Link's clock minus `jackMicros`' (the server's `jack_get_time`), the
    /// closest of three back-to-back readings; published for the process thread.
    public func measureClockOffset(jackMicros: () -> UInt64) {
        var best = Int64.max, offset: Int64 = 0
        for _ in 0..<3 {
            let before = micros, jack = Int64(bitPattern: jackMicros()), after = micros
            if after - before < best {
                best = after - before
                offset = (before + after) / 2 - jack
            }
        }
        clockOffset.store(offset, ordering: .relaxed)
    }
}

public enum LinkError: Error, Equatable, CustomStringConvertible {
    case notMade
    public var description: String {
        switch self {
        case .notMade: "could not start Ableton Link (its sockets or its threads could not be made)"
        }
    }
}
