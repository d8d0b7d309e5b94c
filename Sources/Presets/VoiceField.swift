import Foundation

/// One field of a voice kind: its YAML key, its type and range, its default, and what it does.
/// Validation, decoding and `pulsejack voices --kinds` read it; nothing repeats it.
public struct VoiceField: Sendable {
    public enum Value: Sendable {
        /// A number in a range.
        case number(ClosedRange<Double>)
        /// A whole number in a range.
        case whole(ClosedRange<Int>)
        /// One of these words.
        case choice([String])
        /// Free text (the descriptor checks it).
        case text
        /// A list of words (the descriptor checks them).
        case texts
        /// A list of numbers (the descriptor checks them).
        case numbers
        case flag
        /// A sound file, relative to the file that names it.
        case sound
        /// A folder, relative to the file that names it.
        case folder
        /// A map of names to numbers (a plugin's control symbols and values).
        case controls

        /// A file or folder, relative to the file that names it.
        public var isPath: Bool {
            switch self {
            case .sound, .folder: true
            default: false
            }
        }
    }

    public var key: String
    public var value: Value
    /// The value a voice has when its preset does not give one (nil: none, or it depends): the
    /// builder reads it (`VoiceKindDescriptor.whole(_:of:)` …), and the listing shows it.
    public var defaultOption: VoiceOption?
    public var help: String

    public init(_ key: String, _ value: Value, default defaultOption: VoiceOption? = nil, _ help: String) {
        self.key = key
        self.value = value
        self.defaultOption = defaultOption
        self.help = help
    }

    /// The default as a person would write it in a preset: "16", "0.3", "up", "[C, G, Am, F]".
    public var defaultValue: String? { defaultOption.map(Self.written) }

    static func written(_ option: VoiceOption) -> String {
        switch option {
        case .number(let value): value.plainText
        case .whole(let value): String(value)
        case .text(let value): value
        case .flag(let value): String(value)
        case .texts(let values): "[" + values.joined(separator: ", ") + "]"
        case .numbers(let values): "[" + values.map(\.plainText).joined(separator: ", ") + "]"
        case .controls(let values): "{" + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.plainText)" }.joined(separator: ", ") + "}"
        }
    }

    /// How the field reads in a listing: "0.05…1", "up | down", "sound file".
    public var valueDescription: String {
        switch value {
        case .number(let range): "\(range.lowerBound.plainText)…\(range.upperBound.plainText)"
        case .whole(let range): "\(range.lowerBound)…\(range.upperBound)"
        case .choice(let words): words.joined(separator: " | ")
        case .text: "text"
        case .texts: "list of text"
        case .numbers: "list of numbers"
        case .flag: "true | false"
        case .sound: "sound file"
        case .folder: "folder"
        case .controls: "{symbol: value}"
        }
    }

    /// Decodes this field's value from `container` at `key`, by its type (a wrong type is the
    /// decoder's error, which names the field and its line).
    func decode<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, key: Key) throws -> VoiceOption {
        switch value {
        case .number: .number(try container.decode(Double.self, forKey: key))
        case .whole: .whole(try container.decode(Int.self, forKey: key))
        case .choice, .text, .sound, .folder: .text(try container.decode(String.self, forKey: key))
        case .texts: .texts(try container.decode([String].self, forKey: key))
        case .numbers: .numbers(try container.decode([Double].self, forKey: key))
        case .flag: .flag(try container.decode(Bool.self, forKey: key))
        case .controls: .controls(try container.decode([String: Double].self, forKey: key))
        }
    }

    /// The range and choice checks every field of this type gets; a message, or nil when fine.
    func problem(with option: VoiceOption) -> String? {
        switch value {
        case .number(let range):
            guard let number = option.number else { return "expected a number" }
            return number.isFinite && range.contains(number) ? nil : "\(number) is outside \(valueDescription)"
        case .whole(let range):
            guard let number = option.whole else { return "expected a whole number" }
            return range.contains(number) ? nil : "\(number) is outside \(valueDescription)"
        case .choice(let words):
            guard let word = option.text else { return "expected text" }
            return words.contains(word) ? nil : "'\(word)' is not \(Self.orList(words))"
        default:
            return nil
        }
    }

    static func orList(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}
