import Foundation
import TestSupport

/// The benchmarks' private dummy-driver jackd, made the default server of this process.
final class PrivateJackServer {
    let jackd: PrivateJackd
    var name: String { jackd.name }
    var periodFrames: Int { jackd.periodFrames }

    init(periodFrames: Int) throws {
        jackd = try PrivateJackd(name: "pulsejack-bench-\(periodFrames)", periodFrames: periodFrames)
        setenv("JACK_DEFAULT_SERVER", jackd.name, 1)
    }

    func stop() { jackd.stop() }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
