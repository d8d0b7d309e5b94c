/// What one kind of sensor streams once connected: the characteristics to subscribe to (the
/// required ones, and those used when offered), and the commands that start the stream.
public struct SensorProfile: Sendable {
    public var name: String
    public var notify: [String]
    public var optionalNotify: [String] = []
    public var start: [(characteristic: String, bytes: [UInt8])] = []

    public init(name: String, notify: [String], optionalNotify: [String] = [], start: [(characteristic: String, bytes: [UInt8])] = []) {
        self.name = name
        self.notify = notify
        self.optionalNotify = optionalNotify
        self.start = start
    }
}
