/// One clear error about a user's file: which file, where in it, and what is wrong.
public struct InputError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int?
    public var field: String?
    public var message: String

    public init(file: String, line: Int? = nil, field: String? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    public var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if let field { place += ": \(field)" }
        return "\(place): \(message)"
    }

    /// The same place (file and line), another field and message.
    public func with(field: String?, _ message: String) -> InputError {
        InputError(file: file, line: line, field: field, message)
    }
}
