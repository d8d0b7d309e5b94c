import Inputs
import Realtime
/// Where `/meter` goes: every client that sent `/meter/subscribe` (at most 16; the oldest
/// drops out). The OSC input's thread subscribes; the meter thread publishes, from the OSC
/// port's own socket so that a subscriber sees one peer.
public final class OSCMeterOutput: Sendable {
    public static let maximumSubscribers = 16
    private let socket: UDPSocket
    private let subscribers = LockedBox<[UDPSocket.Address]>([])
    private let changed = LockedBox<(@Sendable () -> Void)?>(nil)

    public init(socket: UDPSocket) {
        self.socket = socket
    }

    /// Adds (or with `on` false removes) `subscriber`; true when the list was full and the
    /// oldest was dropped to make room.
    public func subscribe(_ subscriber: UDPSocket.Address, on: Bool) -> Bool {
        let full = subscribers.withLockedValue { subscribers in
            subscribers.removeAll { $0 == subscriber }
            guard on else { return false }
            let full = subscribers.count >= Self.maximumSubscribers
            if full { subscribers.removeFirst() }
            subscribers.append(subscriber)
            return full
        }
        changed.withLockedValue { $0 }?()
        return full
    }

    /// Called (on the subscriber's thread) after each subscription or unsubscription: the meters
    /// run only while someone watches.
    public func onChange(_ body: @escaping @Sendable () -> Void) { changed.withLockedValue { $0 = body } }

    public var count: Int { subscribers.withLockedValue { $0.count } }

    /// Control thread. Sends `address` with float arguments to every subscriber.
    public func publish(_ address: String, _ values: [Float]) {
        let targets = subscribers.withLockedValue { $0 }
        guard !targets.isEmpty else { return }
        let packet = OSCReply.encode(address, floats: values)
        for target in targets { socket.send(packet, to: target) }
    }
}
