import Atomics
import Inputs
import Foundation
import Realtime

/// Replays recorded control messages live (`run --replay`): a thread that pushes each message
/// into its own ring shortly before its frame, offset to start at the next period.
public final class ReplaySource: Sendable {
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
    private let messages: [ControlMessage]
    private let clock: FrameClock
    private let stopped = ManagedAtomic<Bool>(false)

    /// `messages` carry frames relative to the start of the replay.
    public init(messages: [ControlMessage], clock: FrameClock) {
        self.messages = messages.sorted { $0.frame < $1.frame }
        self.clock = clock
    }

    /// Control thread. Starts pushing; the replay's frame 0 is a tenth of a second from now.
    public func start() {
        let start = clock.currentFrame() + Int64(clock.sampleRate / 10)
        let lead = Int64(clock.sampleRate / 2)
        let thread = Thread { [self] in
            var next = 0
            while next < messages.count {
                if stopped.load(ordering: .acquiring) { return }
                let horizon = clock.currentFrame() + lead
                while next < messages.count, start + messages[next].frame <= horizon, ring.count < ring.capacity {
                    var message = messages[next]
                    message.frame += start
                    ring.producer.push(message)
                    next += 1
                }
                usleep(20_000)
            }
        }
        thread.name = "pulsejack-replay"
        thread.start()
    }

    public func stop() {
        stopped.store(true, ordering: .releasing)
    }
}
