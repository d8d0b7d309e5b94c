import Atomics
import Foundation
import Realtime

/// Publishes the output meters 60 times a second while someone watches them (an OSC `/meter`
/// subscriber, an open page): drains the process thread's blocks through `MeterBallistics` on
/// its own thread (`pj-meters`) and hands each reading to `publish`. While nobody watches, the
/// thread sleeps: the process thread rings it only when its ring of blocks is half full (every
/// few seconds), to be drained so no block — and no count of non-finite samples — is lost, and
/// a status read drains what is there for an up-to-date reading (silence then up to a second
/// behind: unwatched, the process thread measures silent periods a second at a time).
public final class MeterPublisher: Sendable {
    public static let rate = 60.0
    private let meter: OutputMeter
    /// The engine's rate now (it follows the server's): the ballistics are timed in its frames.
    private let sampleRate: @Sendable () -> Int
    /// The ballistics, and the ring's reading end (one thread at a time: the meter thread, or a status read).
    private let drained: LockedBox<MeterBallistics>
    private let running = ManagedAtomic<Bool>(false)
    private let watchers: @Sendable () -> Int
    private let publish: @Sendable (MeterBallistics.Reading) -> Void

    /// `watchers`: how many watch the meters now (call `watchersChanged` when it changes).
    public init(meter: OutputMeter, sampleRate: @escaping @Sendable () -> Int, watchers: @escaping @Sendable () -> Int,
                publish: @escaping @Sendable (MeterBallistics.Reading) -> Void) {
        self.meter = meter
        self.sampleRate = sampleRate
        self.watchers = watchers
        drained = LockedBox(MeterBallistics(sampleRate: sampleRate()))
        self.publish = publish
    }

    /// The reading now (dBFS), with every block measured so far.
    public var reading: MeterBallistics.Reading { drain() }

    /// Any thread: a watcher came or went; the thread starts or stops publishing at once.
    public func watchersChanged() { meter.doorbell.ring() }

    private func drain() -> MeterBallistics.Reading {
        drained.withLockedValue { ballistics in
            if ballistics.sampleRate != sampleRate() { ballistics = MeterBallistics(sampleRate: sampleRate()) }
            let consumer = meter.blocks.consumer
            while let block = consumer.pop() { ballistics.add(block) }
            return ballistics.reading
        }
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            ThreadName.set("pj-meters")
            let interval = UInt64(1e9 / Self.rate)
            var next: UInt64 = 0  // 0: publish at once (a watcher has just come)
            while running.load(ordering: .acquiring) {
                guard watchers() > 0 else {
                    next = 0
                    meter.setWatched(false)
                    _ = drain()
                    meter.doorbell.wait()
                    continue
                }
                meter.setWatched(true)
                let now = DispatchTime.now().uptimeNanoseconds
                if now >= next {
                    publish(drain())
                    // On the 60 Hz grid; one far behind (the machine stalled) starts a new grid.
                    next = next + interval > now ? next + interval : now + interval
                }
                let after = DispatchTime.now().uptimeNanoseconds
                meter.doorbell.wait(seconds: next > after ? Double(next - after) / 1e9 : 0)
            }
        }
        thread.start()
    }

    public func stop() {
        running.store(false, ordering: .releasing)
        meter.doorbell.ring()
    }
}
