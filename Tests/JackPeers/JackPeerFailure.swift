/// A peer client could not be set up.
public struct JackPeerFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
