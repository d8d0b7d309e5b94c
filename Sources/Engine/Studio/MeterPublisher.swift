import Atomics
import Inputs
import Foundation
import Realtime

/// Publishes the output meters 60 times a second: drains the process thread's blocks through
/// `MeterBallistics` on its own thread and hands each reading to `publish` (OSC `/meter` to
/// subscribers). The latest reading is kept for the status.
public final class MeterPublisher: Sendable {
    public static let rate = 60.0
    private let meter: OutputMeter
    /// The engine's rate now (it follows the server's): the ballistics are timed in its frames.
    private let sampleRate: @Sendable () -> Int
    private let latest: LockedBox<MeterBallistics.Reading>
    private let running = ManagedAtomic<Bool>(false)
    private let publish: @Sendable (MeterBallistics.Reading) -> Void

    public init(meter: OutputMeter, sampleRate: @escaping @Sendable () -> Int,
                publish: @escaping @Sendable (MeterBallistics.Reading) -> Void) {
        self.meter = meter
        self.sampleRate = sampleRate
        latest = LockedBox(MeterBallistics(sampleRate: sampleRate()).reading)
        self.publish = publish
    }

    /// The last published reading (dBFS).
    public var reading: MeterBallistics.Reading {
        latest.withLockedValue { $0 }
    }

    public func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            let consumer = meter.blocks.consumer
            var rate = sampleRate()
            var ballistics = MeterBallistics(sampleRate: rate)
            let interval = 1 / Self.rate
            var next = Date()
            while running.load(ordering: .acquiring) {
                if sampleRate() != rate {
                    rate = sampleRate()
                    ballistics = MeterBallistics(sampleRate: rate)
                }
                while let block = consumer.pop() { ballistics.add(block) }
                let reading = ballistics.reading
                latest.withLockedValue { $0 = reading }
                publish(reading)
                next += interval
                let wait = next.timeIntervalSinceNow
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) } else { next = Date() }
            }
        }
        thread.name = "pulsejack-meter"
        thread.start()
    }

    public func stop() {
        running.store(false, ordering: .releasing)
    }
}
