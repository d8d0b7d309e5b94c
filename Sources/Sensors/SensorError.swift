/// A sensor that cannot be reached or read, in one line naming what is missing.
public struct SensorError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
