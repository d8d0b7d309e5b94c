import CJack
import Foundation

/// The private JACK server `make test` starts (`jackd -n NAME -d dummy`), named by
/// PULSEJACK_TEST_SERVER. Tests that need it skip with a clear reason when run outside `make test`.
public enum TestServer {
    public static var name: String? {
        ProcessInfo.processInfo.environment["PULSEJACK_TEST_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public static let missing = "no private JACK server: run the tests with `make test`, which starts one (PULSEJACK_TEST_SERVER)"

    /// The private server, made this process's JACK server (JACK_DEFAULT_SERVER, which libjack
    /// reads at each client's open); nil outside `make test` (skip with `missing`).
    public static func join() -> String? {
        guard let name else { return nil }
        use(name)
        return name
    }

    /// Makes `server` this process's JACK server (a private jackd a test started itself).
    public static func use(_ server: String) {
        setenv("JACK_DEFAULT_SERVER", server, 1)
    }

    /// jackd2's version as `jackd --version` prints it ("jackdmp version 1.9.21 …" → "1.9.21").
    public static func jackdVersion() throws -> String {
        let said = try Subprocess.run("/usr/bin/jackd", ["--version"])
        let words = (said.stdout + said.stderr).split(whereSeparator: \.isWhitespace)
        guard let index = words.firstIndex(of: "version"), index + 1 < words.count else { return "unknown" }
        return String(words[index + 1])
    }

    /// PipeWire's version when the tests run on its libjack (`make test`'s second pass, through
    /// `scripts/with-private-pipewire.sh`), from libjack's own version string; nil on jackd2.
    public static let pipeWireVersion: String? = {
        let said = String(cString: jack_get_version_string())
        return said.range(of: "using PipeWire ").map { String(said[$0.upperBound...].prefix { $0 != ")" }) }
    }()

    public static var isPipeWire: Bool { pipeWireVersion != nil }

    /// The server as pulsejack should name it: "PipeWire 0.3.65", or "jackd2 " and `jackd --version`'s.
    public static func product() throws -> String {
        try pipeWireVersion.map { "PipeWire \($0)" } ?? "jackd2 \(jackdVersion())"
    }

    /// A server name that is certainly not running.
    public static var absentName: String { "pulsejack-absent-\(getpid())" }
}
