import Inputs
import Atomics
// CLiblo as well as Glibc: in a clean build, glibc's socket-type enum (SOCK_DGRAM) can belong to
// the clang module that first included <sys/socket.h>, which is liblo's.
import CLiblo
import Foundation
import Glibc

/// One UDP socket (IPv4 or IPv6): bind, receive with the sender's address and the kernel's drop
/// count, send. What the OSC input and the NSM client share. Not for the process thread.
public final class UDPSocket: Sendable {
    /// A socket address with its length (IPv4 or IPv6).
    public struct Address: Equatable, CustomStringConvertible, Sendable {
        public var storage = sockaddr_storage()
        public var length = socklen_t(0)

        public init() {}

        /// A numeric address (`127.0.0.1`, `::1`) and port; nil if `host` is not one.
        public init?(host: String, port: UInt16) {
            var v4 = sockaddr_in(), v6 = sockaddr_in6()
            if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = port.bigEndian
                self.init(v4)
            } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = port.bigEndian
                self.init(v6)
            } else {
                return nil
            }
        }

        public init(_ address: sockaddr_in) {
            var copy = address
            withUnsafeBytes(of: &copy) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }

        public init(_ address: sockaddr_in6) {
            var copy = address
            withUnsafeBytes(of: &copy) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }

        /// Resolves `host` (a name or a numeric address) for UDP; the first answer.
        public static func resolve(host: String, port: UInt16) -> Address? {
            if let numeric = Address(host: host, port: port) { return numeric }
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
            var results: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, "\(port)", &hints, &results) == 0, let first = results else { return nil }
            defer { freeaddrinfo(results) }
            var address = Address()
            memcpy(&address.storage, first.pointee.ai_addr, Int(first.pointee.ai_addrlen))
            address.length = first.pointee.ai_addrlen
            return address
        }

        public var family: Int32 { Int32(storage.ss_family) }

        public var port: UInt16 {
            var copy = storage
            return withUnsafeBytes(of: &copy) { bytes in
                family == AF_INET6 ? UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port)
                    : UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port)
            }
        }

        /// The same host with another port.
        public func with(port: UInt16) -> Address {
            var copy = self
            withUnsafeMutableBytes(of: &copy.storage) { bytes in
                if family == AF_INET6 { bytes.storeBytes(of: port.bigEndian, toByteOffset: 2, as: UInt16.self) }
                else { bytes.storeBytes(of: port.bigEndian, toByteOffset: 2, as: UInt16.self) }
            }
            return copy
        }

        /// The host part alone (16 bytes for IPv6, 4 for IPv4), for comparisons and CIDR checks.
        public var hostBytes: [UInt8] {
            var copy = storage
            return withUnsafeBytes(of: &copy) { bytes in
                family == AF_INET6 ? Array(bytes[8..<24]) : Array(bytes[4..<8])
            }
        }

        public var isLoopback: Bool {
            family == AF_INET6 ? hostBytes == [UInt8](repeating: 0, count: 15) + [1] || isMappedLoopback : hostBytes[0] == 127
        }

        private var isMappedLoopback: Bool {
            let host = hostBytes
            return host[0..<10].allSatisfy { $0 == 0 } && host[10] == 0xFF && host[11] == 0xFF && host[12] == 127
        }

        public var host: String {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            var bytes = hostBytes
            _ = inet_ntop(family, &bytes, &text, socklen_t(text.count))
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

        public static func == (a: Address, b: Address) -> Bool {
            a.family == b.family && a.port == b.port && a.hostBytes == b.hostBytes
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let descriptor: Int32
    public let local: Address
    /// Datagrams the kernel dropped because the receive buffer was full (SO_RXQ_OVFL), as of
    /// the last datagram received.
    public var kernelDrops: UInt32 { droppedByKernel.load(ordering: .relaxed) }
    private let droppedByKernel = ManagedAtomic<UInt32>(0)

    /// Binds to `address` (port 0: any free port).
    public init(binding address: Address) throws {
        let descriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "cannot create a UDP socket: \(String(cString: strerror(errno)))") }
        var bound = address
        let result = withUnsafePointer(to: &bound.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, address.length) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot listen on \(address): \(reason)")
        }
        var actual = Address()
        actual.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actual.length) }
        }
        self.descriptor = descriptor
        local = actual
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, 40 /* SO_RXQ_OVFL */, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(descriptor) }

    /// The local address the kernel would send from to reach `peer` (a connected probe socket
    /// asked for its name; nothing is sent), port 0.
    public static func localAddress(toward peer: Address) -> Address? {
        let probe = socket(peer.family, Int32(SOCK_DGRAM.rawValue), 0)
        guard probe >= 0 else { return nil }
        defer { close(probe) }
        var target = peer
        let connected = withUnsafePointer(to: &target.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, peer.length) }
        }
        guard connected == 0 else { return nil }
        var local = Address()
        local.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &local.length) }
        }
        return named == 0 ? local.with(port: 0) : nil
    }

    /// Asks for a receive buffer of `bytes` (as root past the system's limit); returns what the
    /// kernel granted (Linux reports twice the payload it keeps for bookkeeping).
    @discardableResult
    public func setReceiveBuffer(bytes: Int) -> Int {
        var size = Int32(clamping: bytes)
        if setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var granted: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &granted, &length)
        return Int(granted)
    }

    /// Waits up to `timeout` seconds for a datagram; its length (0 for an empty one) and sender,
    /// or nil when none came.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Double) -> (count: Int, source: Address)? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var source = Address()
        var control = [UInt64](repeating: 0, count: 8)  // 64 bytes, aligned for cmsghdr
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        let count: Int = withUnsafeMutablePointer(to: &source.storage) { name in
            withUnsafeMutablePointer(to: &vector) { vectorPointer in
                control.withUnsafeMutableBytes { controlBytes in
                    var header = msghdr()
                    header.msg_name = UnsafeMutableRawPointer(name)
                    header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = controlBytes.count
                    let received = recvmsg(descriptor, &header, 0)
                    source.length = header.msg_namelen
                    if received >= 0 { readDropCount(header, controlBytes) }
                    return received
                }
            }
        }
        return count >= 0 ? (count, source) : nil
    }

    /// The SO_RXQ_OVFL control message: a 32-bit count after the (16-byte) cmsghdr.
    private func readDropCount(_ header: msghdr, _ control: UnsafeMutableRawBufferPointer) {
        var offset = 0
        let headerSize = MemoryLayout<cmsghdr>.size
        while offset + headerSize <= Int(header.msg_controllen) {
            let message = control.load(fromByteOffset: offset, as: cmsghdr.self)
            if message.cmsg_level == SOL_SOCKET && message.cmsg_type == 40 && Int(message.cmsg_len) >= headerSize + 4 {
                droppedByKernel.store(control.load(fromByteOffset: offset + headerSize, as: UInt32.self), ordering: .relaxed)
            }
            guard message.cmsg_len > 0 else { break }
            offset += (Int(message.cmsg_len) + 7) & ~7
        }
    }

    /// Sends `bytes` to `destination`; false if the kernel refused it.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: Address) -> Bool {
        var target = destination
        let sent = withUnsafePointer(to: &target.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, destination.length) }
        }
        return sent == bytes.count
    }

    /// Sends `bytes` to `destination`; false if the kernel refused it.
    @discardableResult
    public func send(_ bytes: [UInt8], to destination: Address) -> Bool {
        bytes.withUnsafeBytes { send($0, to: destination) }
    }

    /// Waits up to `timeout` seconds for a datagram: its bytes and sender, or nil when none came.
    public func receive(timeout: Double) -> (bytes: [UInt8], source: Address)? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        guard let (count, source) = buffer.withUnsafeMutableBytes({ receive(into: $0, timeout: timeout) }) else { return nil }
        return (Array(buffer[0..<count]), source)
    }

    /// A socket on any free port of the wildcard address of `family` (for asking, not serving).
    public static func ephemeral(family: Int32) throws -> UDPSocket {
        try UDPSocket(binding: Address(host: family == AF_INET6 ? "::" : "0.0.0.0", port: 0)!)
    }
}
