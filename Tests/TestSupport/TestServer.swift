import Foundation

/// The private JACK server `make test` starts (`jackd -n NAME -d dummy`), named by
/// PULSEJACK_TEST_SERVER. Tests that need it skip with a clear reason when run outside `make test`.
public enum TestServer {
    public static var name: String? {
        ProcessInfo.processInfo.environment["PULSEJACK_TEST_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public static let missing = "no private JACK server: run the tests with `make test`, which starts one (PULSEJACK_TEST_SERVER)"

    /// A server name that is certainly not running.
    public static var absentName: String { "pulsejack-absent-\(getpid())" }
}
