import Inputs
import Atomics
import CLiblo
import Foundation
import Glibc
import Realtime

/// A New Session Manager client (NSM API 1.1): announce, wait for open, save on request, report
/// dirty state. liblo serialises what we send; our own socket listens only toward the manager.
/// Control thread only; `poll` handles what the manager sent.
public final class NSMClient: Sendable {
    /// What `/nsm/client/open` gives: where to keep state, and the JACK client name to use.
    public struct Session: Sendable, Equatable {
        public var path: String
        public var displayName: String
        public var clientID: String
    }

    public enum Request: Equatable {
        case open(Session)
        case save
        case sessionLoaded
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    public let url: String
    /// The manager's address, resolved from `NSM_URL`: the only sender we obey.
    public let manager: UDPSocket.Address
    private let socket: UDPSocket
    /// The manager's name from its announce reply, and whether we last said "dirty".
    private let conversation = LockedBox<(managerName: String?, dirty: Bool)>((nil, false))
    /// Messages from any address or port but the manager's: ignored, counted and logged.
    public let strangers = ManagedAtomic<Int>(0)
    private let log: @Sendable (String) -> Void
    private let strangerLines = WarningLimiter()

    /// The session manager's URL from the environment, when pulsejack runs under one.
    public static var environmentURL: String? {
        ProcessInfo.processInfo.environment["NSM_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Listens on the interface that reaches the manager (127.0.0.1 for a local one), never on
    /// every interface: a stranger on the network must not open sessions or write files.
    public init(url: String, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.url = url
        self.log = log
        guard let parsed = lo_address_new_from_url(url) else { throw Failure("NSM_URL \(url) is not an OSC URL") }
        defer { lo_address_free(parsed) }
        guard lo_address_get_protocol(parsed) == LO_UDP else { throw Failure("NSM_URL \(url): only osc.udp is supported") }
        let host = lo_address_get_hostname(parsed).map { String(cString: $0) } ?? "localhost"
        guard let portText = lo_address_get_port(parsed).map({ String(cString: $0) }), let port = UInt16(portText), port > 0 else {
            throw Failure("NSM_URL \(url) names no UDP port")
        }
        guard let manager = UDPSocket.Address.resolve(host: host, port: port) else {
            throw Failure("NSM_URL \(url): cannot resolve \(host)")
        }
        self.manager = manager
        guard let local = UDPSocket.localAddress(toward: manager) else {
            throw Failure("NSM_URL \(url): no route to the session manager at \(manager)")
        }
        do { socket = try UDPSocket(binding: local) } catch {
            throw Failure("cannot open a UDP port to talk to the session manager: \(error)")
        }
    }

    /// The manager's name, as its reply to our announce gave it.
    public var managerName: String? { conversation.withLockedValue { $0.managerName } }

    /// Where we listen (the manager's interface, a free port).
    public var localAddress: UDPSocket.Address { socket.local }
    /// The socket the manager's messages arrive on: readable when `poll` has something.
    public var descriptor: Int32 { socket.descriptor }

    private func send(_ path: String, _ arguments: [OSCMessage.Argument]) {
        guard let message = lo_message_new() else { return }
        defer { lo_message_free(message) }
        for argument in arguments {
            switch argument {
            case .string(let text): lo_message_add_string(message, text)
            case .int(let number): lo_message_add_int32(message, Int32(clamping: number))
            case .float(let number): lo_message_add_float(message, Float(number))
            case .bool(let flag): if flag { lo_message_add_true(message) } else { lo_message_add_false(message) }
            }
        }
        var size = 0
        guard let data = lo_message_serialise(message, path, nil, &size) else { return }
        defer { free(data) }
        socket.send(UnsafeRawBufferPointer(start: data, count: size), to: manager)
    }

    /// Receives what the manager sent within `timeout` seconds; anything from elsewhere is
    /// counted and dropped unread.
    private func receive(timeout: Double) -> [(path: String, arguments: [String])] {
        var messages: [(path: String, arguments: [String])] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var wait = timeout
        while true {
            let received = buffer.withUnsafeMutableBytes { socket.receive(into: $0, timeout: wait) }
            guard let (count, source) = received else { break }
            wait = 0
            guard source == manager else {
                strangers.wrappingIncrement(ordering: .relaxed)
                if let line = strangerLines.admit("ignored an NSM message from \(source): only the session manager at \(manager) is obeyed",
                                                  kind: "stranger") { log(line) }
                continue
            }
            guard let decoded = try? OSCPacket.decode(Array(buffer[0..<count])) else { continue }
            for message in decoded {
                messages.append((message.address, message.arguments.map { argument in
                    switch argument {
                    case .string(let text): text
                    case .int(let number): "\(number)"
                    case .float(let number): "\(Float(number))"
                    case .bool(let flag): flag ? "1" : "0"
                    }
                }))
            }
        }
        return messages
    }

    /// Announces pulsejack and waits for the manager's open (`stop` returning true gives up,
    /// e.g. on SIGTERM). Throws on the manager's error, or when it never answers the announce.
    public func announce(application: String, executable: String, capabilities: String = ":dirty:",
                         stop: () -> Bool) throws -> Session? {
        send("/nsm/server/announce", [.string(application), .string(capabilities), .string(executable), .int(1), .int(1),
                                       .int(Int64(getpid()))])
        var acknowledged = false
        var waited = 0.0
        while !stop() {
            for message in receive(timeout: 0.1) {
                switch message.path {
                case "/reply" where message.arguments.first == "/nsm/server/announce":
                    acknowledged = true
                    conversation.withLockedValue { $0.managerName = message.arguments.count > 2 ? message.arguments[2] : nil }
                case "/error" where message.arguments.first == "/nsm/server/announce":
                    throw Failure("the session manager refused pulsejack: \(message.arguments.dropFirst(2).joined(separator: " "))")
                case "/nsm/client/open" where message.arguments.count >= 3:
                    return Session(path: message.arguments[0], displayName: message.arguments[1], clientID: message.arguments[2])
                default:
                    break
                }
            }
            waited += 0.1
            if !acknowledged && waited > 5 { throw Failure("the session manager at \(url) did not answer the announce") }
        }
        return nil
    }

    /// Answers the open: ready, or why not.
    public func opened(error: String? = nil) {
        if let error { send("/error", [.string("/nsm/client/open"), .int(-1), .string(error)]) } else {
            send("/reply", [.string("/nsm/client/open"), .string("ready")])
        }
    }

    /// Answers a save.
    public func saved(error: String? = nil) {
        if let error { send("/error", [.string("/nsm/client/save"), .int(-1), .string(error)]) } else {
            send("/reply", [.string("/nsm/client/save"), .string("saved")])
            setDirty(false)
        }
    }

    /// Tells the manager whether there are unsaved changes (only when that changes).
    public func setDirty(_ isDirty: Bool) {
        let changed = conversation.withLockedValue { state in
            defer { state.dirty = isDirty }
            return state.dirty != isDirty
        }
        guard changed else { return }
        send(isDirty ? "/nsm/client/is_dirty" : "/nsm/client/is_clean", [])
    }

    /// What the manager asked since the last call (waiting at most `timeout` seconds).
    public func poll(timeout: Double = 0) -> [Request] {
        receive(timeout: timeout).compactMap { message in
            switch message.path {
            case "/nsm/client/save": return .save
            case "/nsm/client/session_is_loaded": return .sessionLoaded
            case "/nsm/client/open" where message.arguments.count >= 3:
                return .open(Session(path: message.arguments[0], displayName: message.arguments[1], clientID: message.arguments[2]))
            default: return nil
            }
        }
    }
}
