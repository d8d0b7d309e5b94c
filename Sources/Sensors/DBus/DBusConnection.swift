import CSystemd
import Glibc
import Realtime

/// A connection to the system bus (BlueZ's), through sd-bus: method calls with replies, signal
/// subscriptions, and a dispatch step for the owning thread's loop. sd-bus is not thread-safe:
/// one thread (the sensor thread) makes, uses and closes a connection. `DBUS_SYSTEM_BUS_ADDRESS`
/// chooses another bus (the tests' private one).
public final class DBusConnection {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// The D-Bus error name (`org.freedesktop.DBus.Error.ServiceUnknown`, `org.bluez.Error.Failed` …), or nil for a local failure.
        public var name: String?
        public var description: String
    }

    /// A signal as it arrived: its object path, interface, member and arguments.
    public struct Signal {
        public var path: String
        public var interface: String
        public var member: String
        public var arguments: [DBusValue]
    }

    private let bus: OpaquePointer
    private var subscriptions: [(slot: OpaquePointer?, handler: SignalHandler)] = []

    private final class SignalHandler {
        let handle: (Signal) -> Void
        init(_ handle: @escaping (Signal) -> Void) { self.handle = handle }
    }

    /// Opens the system bus (or the one `DBUS_SYSTEM_BUS_ADDRESS` names), or the bus at `address`.
    public init(address: String? = nil) throws(Failure) {
        var bus: OpaquePointer?
        var result: Int32
        if let address {
            result = sd_bus_new(&bus)
            if result >= 0 { result = sd_bus_set_address(bus, address) }
            if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
            if result >= 0 { result = sd_bus_start(bus) }
            if result < 0, let opened = bus { sd_bus_flush_close_unref(opened) }
        } else {
            result = sd_bus_open_system(&bus)
        }
        guard result >= 0, let bus else {
            throw Failure(name: nil, description: String(cString: strerror(-result)))
        }
        self.bus = bus
    }

    deinit {
        for subscription in subscriptions { sd_bus_slot_unref(subscription.slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// Calls a method and waits up to `timeout` seconds for its reply's arguments.
    public func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
                     _ arguments: [DBusValue] = [], timeout: Double = 10) throws(Failure) -> [DBusValue] {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw local("\(interface).\(member)", result) }
        defer { sd_bus_message_unref(message) }
        for argument in arguments {
            result = Self.append(argument, to: message)
            guard result >= 0 else { throw local("\(interface).\(member) arguments", result) }
        }
        var error = sd_bus_error()
        var reply: OpaquePointer?
        result = sd_bus_call(bus, message, UInt64(timeout * 1_000_000), &error, &reply)
        defer {
            sd_bus_error_free(&error)
            if let reply { sd_bus_message_unref(reply) }
        }
        guard result >= 0, let reply else {
            let name = error.name.map { String(cString: $0) }
            let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-result))
            throw Failure(name: name, description: "\(member) on \(path): \(text)")
        }
        do { return try Self.readAll(reply) } catch { throw local("\(member) reply", error.code) }
    }

    /// Calls `handler` (on this connection's thread, inside `dispatch`) for each matching signal.
    public func subscribe(interface: String, member: String, _ handler: @escaping (Signal) -> Void) throws(Failure) {
        let box = SignalHandler(handler)
        var slot: OpaquePointer?
        let callback: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            let box = Unmanaged<SignalHandler>.fromOpaque(userdata).takeUnretainedValue()
            guard let arguments = try? DBusConnection.readAll(message) else { return 0 }
            box.handle(Signal(path: sd_bus_message_get_path(message).map { String(cString: $0) } ?? "",
                              interface: sd_bus_message_get_interface(message).map { String(cString: $0) } ?? "",
                              member: sd_bus_message_get_member(message).map { String(cString: $0) } ?? "",
                              arguments: arguments))
            return 0
        }
        let result = sd_bus_match_signal(bus, &slot, nil, nil, interface, member, callback, Unmanaged.passUnretained(box).toOpaque())
        guard result >= 0 else { throw local("subscribing to \(interface).\(member)", result) }
        subscriptions.append((slot, box))
    }

    /// Handles what has arrived (signals to their handlers); when nothing has, sleeps until the
    /// bus has something, `bell` rings, or `timeout` seconds (nil: no limit) have passed. Throws
    /// when the bus connection is lost.
    public func dispatch(waitingUpTo timeout: Double?, orRung bell: Doorbell) throws(Failure) {
        guard try processPending() == 0 else { return }
        // What is queued to send goes now, so that only the bus's input can wake us.
        let flushed = sd_bus_flush(bus)
        guard flushed >= 0 else { throw local("sending on the bus", flushed) }
        let descriptor = sd_bus_get_fd(bus)
        guard descriptor >= 0 else { throw local("the bus connection", descriptor) }
        var seconds = timeout
        // The bus's own deadline (a call's reply overdue), absolute on CLOCK_MONOTONIC.
        var due: UInt64 = 0
        if sd_bus_get_timeout(bus, &due) > 0, due != UInt64.max {
            var clock = timespec()
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let now = UInt64(clock.tv_sec) * 1_000_000 + UInt64(clock.tv_nsec / 1000)
            let left = due > now ? Double(due - now) / 1e6 : 0
            seconds = min(seconds ?? left, left)
        }
        _ = bell.wait(orReadable: descriptor, seconds: seconds)
        _ = try processPending()
    }

    @discardableResult
    private func processPending() throws(Failure) -> Int {
        var handled = 0
        while true {
            let result = sd_bus_process(bus, nil)
            guard result >= 0 else { throw local("the bus connection", result) }
            if result == 0 { return handled }
            handled += 1
        }
    }

    private func local(_ what: String, _ code: Int32) -> Failure {
        Failure(name: nil, description: "\(what): \(String(cString: strerror(abs(code))))")
    }

    // MARK: Messages ↔ values

    private struct ReadFailure: Error { var code: Int32 }

    private static func type(_ character: Character) -> CChar { CChar(bitPattern: character.asciiValue!) }

    private static func readAll(_ message: OpaquePointer) throws(ReadFailure) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try readNext(message) { values.append(value) }
        return values
    }

    /// The next value in the current container, or nil at its end.
    private static func readNext(_ message: OpaquePointer) throws(ReadFailure) -> DBusValue? {
        var kind: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &kind, &contents)
        guard peeked >= 0 else { throw ReadFailure(code: peeked) }
        guard peeked > 0 else { return nil }
        func basic<T: BitwiseCopyable>(_ initial: T) throws(ReadFailure) -> T {
            var value = initial
            let result = withUnsafeMutableBytes(of: &value) { sd_bus_message_read_basic(message, kind, $0.baseAddress) }
            guard result > 0 else { throw ReadFailure(code: result < 0 ? result : -EBADMSG) }
            return value
        }
        func container(_ read: () throws(ReadFailure) -> DBusValue) throws(ReadFailure) -> DBusValue {
            let entered = sd_bus_message_enter_container(message, kind, contents)
            guard entered > 0 else { throw ReadFailure(code: entered < 0 ? entered : -EBADMSG) }
            let value = try read()
            let exited = sd_bus_message_exit_container(message)
            guard exited >= 0 else { throw ReadFailure(code: exited) }
            return value
        }
        switch UInt8(bitPattern: kind) {
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "b"): return .bool(try basic(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"), UInt8(ascii: "h"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try basic(UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            return kind == type("s") ? .string(text) : kind == type("o") ? .objectPath(text) : .signature(text)
        case UInt8(ascii: "a"):
            let element = contents.map { String(cString: $0) } ?? ""
            if element == "y" { return .bytes(try readBytes(message)) }
            return try container { () throws(ReadFailure) in .array(elementSignature: element, try readAll(message)) }
        case UInt8(ascii: "e"):
            return try container { () throws(ReadFailure) in
                let pair = try readAll(message)
                guard pair.count == 2 else { throw ReadFailure(code: -EBADMSG) }
                return .dictEntry(pair[0], pair[1])
            }
        case UInt8(ascii: "r"):
            return try container { () throws(ReadFailure) in .structure(try readAll(message)) }
        case UInt8(ascii: "v"):
            return try container { () throws(ReadFailure) in
                guard let inner = try readNext(message) else { throw ReadFailure(code: -EBADMSG) }
                return .variant(inner)
            }
        default:
            throw ReadFailure(code: -EBADMSG)
        }
    }

    /// An array of bytes (a characteristic's value), read whole.
    private static func readBytes(_ message: OpaquePointer) throws(ReadFailure) -> [UInt8] {
        var pointer: UnsafeRawPointer?
        var size = 0
        let result = sd_bus_message_read_array(message, type("y"), &pointer, &size)
        guard result >= 0 else { throw ReadFailure(code: result) }
        return pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
    }

    private static func append(_ value: DBusValue, to message: OpaquePointer) -> Int32 {
        func basic<T: BitwiseCopyable>(_ kind: Character, _ value: T) -> Int32 {
            withUnsafeBytes(of: value) { sd_bus_message_append_basic(message, type(kind), $0.baseAddress) }
        }
        func container(_ kind: Character, _ contents: String, _ values: [DBusValue]) -> Int32 {
            var result = sd_bus_message_open_container(message, type(kind), contents)
            guard result >= 0 else { return result }
            for value in values {
                result = append(value, to: message)
                guard result >= 0 else { return result }
            }
            return sd_bus_message_close_container(message)
        }
        switch value {
        case .byte(let value): return basic("y", value)
        case .bool(let value): return basic("b", Int32(value ? 1 : 0))
        case .int16(let value): return basic("n", value)
        case .uint16(let value): return basic("q", value)
        case .int32(let value): return basic("i", value)
        case .uint32(let value): return basic("u", value)
        case .int64(let value): return basic("x", value)
        case .uint64(let value): return basic("t", value)
        case .double(let value): return basic("d", value)
        // Strings go in as the characters themselves, not a pointer to them.
        case .string(let text): return text.withCString { sd_bus_message_append_basic(message, type("s"), $0) }
        case .objectPath(let text): return text.withCString { sd_bus_message_append_basic(message, type("o"), $0) }
        case .signature(let text): return text.withCString { sd_bus_message_append_basic(message, type("g"), $0) }
        case .array(let element, let values):
            if element == "y", let bytes = value.bytes {
                return bytes.withUnsafeBytes { sd_bus_message_append_array(message, type("y"), $0.baseAddress, $0.count) }
            }
            return container("a", element, values)
        case .dictEntry(let key, let entry): return container("e", key.signature + entry.signature, [key, entry])
        case .structure(let fields): return container("r", fields.map(\.signature).joined(), fields)
        case .variant(let inner): return container("v", inner.signature, [inner])
        }
    }
}
