/// A connection asked for on the command line, `OURS=THEIRS` (e.g. `midi_out=Hydrogen:midi_in`).
public struct ConnectRequest: Sendable {
    public var ours: String
    public var theirs: String

    public init?(_ text: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else { return nil }
        ours = String(text[..<equals])
        theirs = String(text[text.index(after: equals)...])
    }
}
