/// One D-Bus value, as BlueZ's API sends and takes them: the basic types, arrays (a dictionary
/// is an array of dict entries), structs and variants. Enough to read `GetManagedObjects` and
/// `PropertiesChanged` and to write the few arguments a BLE central passes.
public indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array, with its element type's signature (needed to write an empty one).
    case array(elementSignature: String, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's type signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// `a{sv}`, the options and property maps BlueZ takes.
    public static func options(_ entries: [String: DBusValue]) -> DBusValue {
        .array(elementSignature: "{sv}", entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    public static func strings(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map { .string($0) })
    }

    public static func bytes(_ values: [UInt8]) -> DBusValue {
        .array(elementSignature: "y", values.map { .byte($0) })
    }

    // MARK: Reading, variants seen through

    private var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text): text
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    /// Any integer type, as an `Int`.
    public var integer: Int? {
        switch unwrapped {
        case .byte(let value): Int(value)
        case .int16(let value): Int(value)
        case .uint16(let value): Int(value)
        case .int32(let value): Int(value)
        case .uint32(let value): Int(value)
        case .int64(let value): Int(value)
        case .uint64(let value): Int(exactly: value)
        default: nil
        }
    }

    public var elements: [DBusValue]? {
        switch unwrapped {
        case .array(_, let elements): elements
        case .structure(let fields): fields
        default: nil
        }
    }

    /// An `ay`'s bytes.
    public var bytes: [UInt8]? {
        guard let elements else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard case .byte(let byte) = element else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    public var strings: [String]? {
        guard let elements else { return nil }
        let strings = elements.compactMap(\.string)
        return strings.count == elements.count ? strings : nil
    }

    /// A dictionary with string (or object path) keys: `a{sv}`, `a{sa{sv}}`, `a{oa{sa{sv}}}`.
    public var dictionary: [String: DBusValue]? {
        guard let elements else { return nil }
        var dictionary: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictEntry(let key, let value) = element, let name = key.string else { return nil }
            dictionary[name] = value
        }
        return dictionary
    }
}
