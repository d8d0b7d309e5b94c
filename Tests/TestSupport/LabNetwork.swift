import Foundation
import Glibc
import Realtime

/// A network namespace of the test's own with loopback alone up (multicast and broadcast routed
/// onto it), for every peer that discovers others by multicast or broadcast (LSL; Link next):
/// nothing such a test sends leaves the machine. A peer started through `command` runs inside
/// it; `LSLPeer` and `peer.py` refuse to start where any interface but loopback is up. JACK's
/// sockets are files, so pulsejack inside still reaches the private jackd. Root only (`ip netns`).
public final class LabNetwork: Sendable {
    public let name: String
    private static let count = LockedBox(0)
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why no namespace can be made here (nil: one can).
    public static var missing: String? {
        guard ip != nil else { return "iproute2's ip is not installed (make test installs it)" }
        guard getuid() == 0 else { return "a network namespace of the test's own needs root (CI runs as root)" }
        return nil
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes `pj-TAG-PID-N`: loopback up with multicast on, 224.0.0.0/4 and the broadcast address
    /// routed to it; refuses (throws) if anything but loopback is up there.
    public init(_ tag: String) throws {
        guard let ip = Self.ip, Self.missing == nil else { throw Failure(description: Self.missing ?? "no ip") }
        let number = Self.count.withLockedValue { $0 += 1; return $0 }
        name = "pj-\(tag.prefix(12))-\(getpid())-\(number)"
        for arguments in [["netns", "add", name], ["-n", name, "link", "set", "lo", "up"], ["-n", name, "link", "set", "lo", "multicast", "on"],
                          ["-n", name, "route", "add", "224.0.0.0/4", "dev", "lo"], ["-n", name, "route", "add", "255.255.255.255/32", "dev", "lo"]] {
            let made = try Subprocess.run(ip, arguments, timeout: 20)
            guard made.status == 0 else {
                remove()
                throw Failure(description: "ip \(arguments.joined(separator: " ")): \(made.stderr)")
            }
        }
        let up = interfacesUp
        guard up == ["lo"] else {
            remove()
            throw Failure(description: "the namespace \(name) has \(up) up, not loopback alone")
        }
    }

    /// The interfaces up inside.
    public var interfacesUp: [String] {
        guard let ip = Self.ip, let listed = try? Subprocess.run(ip, ["-n", name, "-o", "link", "show", "up"], timeout: 20) else { return [] }
        return listed.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: ":").dropFirst().first.map { String($0.trimmingCharacters(in: .whitespaces).split(separator: "@")[0]) }
        }
    }

    /// `executable arguments` as run inside (`ip netns exec`, which execs it: the pid is the program's).
    public func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        (Self.ip ?? "/usr/sbin/ip", ["netns", "exec", name, executable] + arguments)
    }

    /// Runs a program inside and collects its output.
    public func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double? = nil) throws -> Subprocess {
        let wrapped = command(executable, arguments)
        return try Subprocess.run(wrapped.executable, wrapped.arguments, environment: environment, timeout: timeout)
    }

    /// `pulsejack status --json` of the run inside whose OSC port is `port`.
    public func status(oscPort port: UInt16) -> [String: Any] {
        let answer = try? run(Subprocess.pulsejack, ["status", "--osc-port", "\(port)", "--json"], timeout: 5)
        return (try? JSONSerialization.jsonObject(with: Data((answer?.stdout ?? "").utf8)) as? [String: Any]) ?? [:]
    }

    /// A TCP port on this side's loopback that reaches `port` on the namespace's (socat, one
    /// process inside per connection): a browser outside opens a page served inside.
    public func relay(port: Int) throws -> (process: Process, port: Int) {
        guard let socat = Subprocess.which("socat") else { throw Failure(description: "socat is not installed (make test installs it)") }
        let local = Self.freeTCPPort()
        // socat splits addresses at ':'; the inner one's are escaped.
        let inside = command(socat, ["STDIO", "TCP\\:127.0.0.1\\:\(port)"])
        let process = Process()
        Subprocess.keepForTheSuite(process)
        process.executableURL = URL(fileURLWithPath: socat)
        process.arguments = ["TCP-LISTEN:\(local),bind=127.0.0.1,reuseaddr,fork",
                             "EXEC:" + ([inside.executable] + inside.arguments).joined(separator: " ")]
        (process.standardOutput, process.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try Subprocess.launch(process)
        return (process, local)
    }

    /// A TCP port free on this side's loopback now.
    static func freeTCPPort() -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Ends every process inside (SIGTERM, then SIGKILL) and removes the namespace.
    public func remove() {
        guard let ip = Self.ip else { return }
        for signal in ["TERM", "KILL"] {
            let pids = ((try? Subprocess.run(ip, ["netns", "pids", name], timeout: 10))?.stdout ?? "").split(separator: "\n").map(String.init)
            guard !pids.isEmpty else { break }
            _ = try? Subprocess.run("/bin/kill", ["-\(signal)"] + pids, timeout: 10)
            usleep(300_000)
        }
        _ = try? Subprocess.run(ip, ["netns", "del", name], timeout: 20)
    }
}
