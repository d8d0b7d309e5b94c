import Realtime

/// The run's own messages into the engine, from its control thread: the starting tempo, a
/// dropout's fade, a plugin state loaded, the mood DJ's next track.
public final class ControlInput: InputSource {
    public let ring = SPSCRing<ControlMessage>(minimumCapacity: 256)

    public init() {}

    /// Control thread (the ring's one producer). False: the ring was full.
    @discardableResult
    public func send(_ message: ControlMessage) -> Bool { ring.producer.push(message) }
}
