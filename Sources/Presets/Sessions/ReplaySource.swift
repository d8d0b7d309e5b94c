import Atomics
import Inputs
import Foundation
import Realtime

/// Replays recorded control messages live (`run --replay`): a thread that pushes each message
/// into its own ring shortly before its frame, offset to start at the next period. Timed in
/// seconds: when the engine's rate changes (the server's did), the rest plays at the new rate.
public final class ReplaySource: Sendable {
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
    private let messages: [ControlMessage]
    /// The rate the messages' frames count in (the clock's when the replay was made).
    private let messageRate: Int
    private let clock: FrameClock
    private let stopped = ManagedAtomic<Bool>(false)
    private let stopping = Doorbell()
    /// The watch over every heart source: each replayed tempo and beat is heart data.
    private let hearts: HeartWatch?

    /// `messages` carry frames relative to the start of the replay, at the clock's rate now.
    public init(messages: [ControlMessage], clock: FrameClock, hearts: HeartWatch? = nil) {
        self.messages = messages.sorted { $0.frame < $1.frame }
        self.clock = clock
        messageRate = clock.sampleRate
        self.hearts = hearts
    }

    /// Control thread. Starts pushing; the replay's frame 0 is a tenth of a second from now.
    public func start() {
        let thread = Thread { [self] in
            ThreadName.set("pj-replay")
            // Where the replay's time `seconds` falls in engine frames at `rate` (re-anchored at a rate change).
            var rate = clock.sampleRate
            var anchor = (frame: clock.currentFrame() + Int64(rate / 10), seconds: 0.0)
            var seen = clock.currentFrame()
            var next = 0
            while next < messages.count {
                if stopped.load(ordering: .acquiring) { return }
                if clock.sampleRate != rate {
                    anchor = (clock.currentFrame(), anchor.seconds + Double(seen - anchor.frame) / Double(rate))
                    rate = clock.sampleRate
                }
                seen = clock.currentFrame()
                let horizon = seen + Int64(rate / 2)
                // Asleep until the next message is within the horizon (at most half a second, so
                // a rate change is followed), or a period's drain when the ring is full.
                var sleep = 0.5
                while next < messages.count {
                    guard ring.count < ring.capacity else {
                        sleep = 0.02
                        break
                    }
                    let seconds = Double(messages[next].frame) / Double(messageRate)
                    let frame = anchor.frame + Int64(((seconds - anchor.seconds) * Double(rate)).rounded())
                    guard frame <= horizon else {
                        sleep = min(sleep, Double(frame - horizon) / Double(rate))
                        break
                    }
                    var message = messages[next]
                    message.frame = frame
                    ring.producer.push(message)
                    if message.event.isHeartData { hearts?.heard(performer: Int(message.performer)) }
                    next += 1
                }
                if next < messages.count { stopping.wait(seconds: sleep) }
            }
        }
        thread.start()
    }

    public func stop() {
        stopped.store(true, ordering: .releasing)
        stopping.ring()
    }
}

extension ReplaySource: InputSource {}
