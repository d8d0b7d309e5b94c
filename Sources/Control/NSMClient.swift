import CLiblo
import Foundation

/// A New Session Manager client (NSM API 1.1) over liblo: announce, wait for open, save on
/// request, report dirty state. Control thread only; `poll` handles what the manager sent.
public final class NSMClient {
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
    private let server: lo_server
    private let manager: lo_address
    private var received: [(path: String, arguments: [String])] = []
    public private(set) var managerName: String?
    private var dirty = false

    /// The session manager's URL from the environment, when pulsejack runs under one.
    public static var environmentURL: String? {
        ProcessInfo.processInfo.environment["NSM_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public init(url: String) throws {
        self.url = url
        guard let manager = lo_address_new_from_url(url) else { throw Failure("NSM_URL \(url) is not an OSC URL") }
        guard let server = lo_server_new_with_proto(nil, LO_UDP, nil) else {
            lo_address_free(manager)
            throw Failure("cannot open a UDP port to talk to the session manager")
        }
        self.manager = manager
        self.server = server
        lo_server_add_method(server, nil, nil, { path, types, argv, argc, _, context in
            let client = Unmanaged<NSMClient>.fromOpaque(context!).takeUnretainedValue()
            var arguments: [String] = []
            for index in 0..<Int(argc) {
                guard let argument = argv?[index], let type = types?[index] else { continue }
                switch UInt8(bitPattern: type) {
                // Strings are read in place: lo_arg is a union whose string runs past its size.
                case UInt8(ascii: "s"), UInt8(ascii: "S"):
                    arguments.append(String(cString: UnsafeRawPointer(argument).assumingMemoryBound(to: CChar.self)))
                case UInt8(ascii: "i"): arguments.append("\(argument.pointee.i)")
                case UInt8(ascii: "f"): arguments.append("\(argument.pointee.f)")
                default: arguments.append("")
                }
            }
            client.received.append((String(cString: path!), arguments))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        lo_server_free(server)
        lo_address_free(manager)
    }

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
        lo_send_message_from(manager, server, path, message)
    }

    /// Receives what arrived within `timeout` seconds.
    private func receive(timeout: Double) -> [(path: String, arguments: [String])] {
        _ = lo_server_recv_noblock(server, Int32(timeout * 1000))
        while lo_server_recv_noblock(server, 0) > 0 {}
        defer { received.removeAll() }
        return received
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
                    managerName = message.arguments.count > 2 ? message.arguments[2] : nil
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
        guard isDirty != dirty else { return }
        dirty = isDirty
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
