import CJack
import Foundation

/// Which JACK this process talks to, as its libjack says (`jack_get_version_string`, known
/// without a server): jackd2's own library ("1.9.21") or PipeWire's ("3.0.0.0 (using
/// PipeWire 0.3.65)"). They differ where it matters to a musician: PipeWire ignores
/// `JACK_DEFAULT_SERVER`, runs no client in the first cycle of a new quantum, hands the timebase
/// the current cycle's position, and 0.3.65 calls only the plain shutdown callback.
public struct JackServerIdentity: Sendable, Equatable {
    /// libjack's version string, whole.
    public let versionString: String
    /// PipeWire's version when its libjack is loaded ("0.3.65"), else nil.
    public let pipeWireVersion: String?

    public init(versionString: String) {
        self.versionString = versionString
        pipeWireVersion = versionString.range(of: "using PipeWire ").map { range in
            String(versionString[range.upperBound...].prefix { $0 != ")" && $0 != " " })
        }
    }

    /// The libjack this process loaded.
    public static let current = JackServerIdentity(versionString: String(cString: jack_get_version_string()))

    public var isPipeWire: Bool { pipeWireVersion != nil }

    /// "PipeWire 0.3.65" or "jackd2 1.9.21".
    public var product: String { pipeWireVersion.map { "PipeWire \($0)" } ?? "jackd2 \(versionString)" }

    /// Where a client is: PipeWire's JACK (no server name: it ignores `JACK_DEFAULT_SERVER`),
    /// or jackd2's server by the name this process asks for.
    public var described: String {
        isPipeWire ? "PipeWire's JACK (\(product))" : "JACK server '\(JackClient.serverName)' (\(product))"
    }

    /// Whether a PipeWire daemon runs for this user: its socket in `$XDG_RUNTIME_DIR`
    /// (`PIPEWIRE_REMOTE`, else `pipewire-0`).
    public static var pipeWireRuns: Bool {
        let environment = ProcessInfo.processInfo.environment
        guard let runtime = environment["PIPEWIRE_RUNTIME_DIR"] ?? environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        let remote = environment["PIPEWIRE_REMOTE"].flatMap { $0.isEmpty ? nil : $0 } ?? "pipewire-0"
        let path = remote.hasPrefix("/") ? remote : runtime + "/" + remote
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }
}
