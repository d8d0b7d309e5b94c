/// A peer client could not be set up.
public struct JackPeerFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

import CJack
import Foundation

/// Opens a test peer's JACK client on the running server, never under the server's own name
/// (such a client takes the server's socket path and cuts every other client off).
func openPeerClient(_ name: String, role: String, server named: String? = nil) throws -> OpaquePointer {
    let server = named ?? ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    guard name != server else { throw JackPeerFailure("\(role): the client name '\(name)' is the server's own name") }
    var status = jack_status_t(rawValue: 0)
    guard let client = pj_client_open(name, JackNoStartServer, &status, named) else { throw JackPeerFailure("\(role): no server") }
    return client
}
