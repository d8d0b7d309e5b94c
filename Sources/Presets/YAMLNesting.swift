/// How deeply a YAML text nests, measured before any parser sees it. Yams composes nodes
/// recursively, so a preset nested 5,000 deep (`[[[[…` or ever-deeper indentation) would
/// overflow the stack and crash instead of failing with a line number. Control thread.
///
/// The measure is conservative, never lower than the real depth: each open indentation level,
/// each `- `/`? ` entry opened on a line, and each open flow bracket counts one.
package enum YAMLNesting {
    /// A preset needs about six levels; this leaves room for anything hand-written.
    static let maximumDepth = 64

    /// The first line (1-based) whose nesting exceeds `limit`, with the depth there; nil if none.
    static func firstLineDeeperThan(_ limit: Int, in text: String) -> (depth: Int, line: Int)? {
        var indents: [Int] = []
        var flowDepth = 0
        var lineNumber = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var index = line.startIndex
            var indent = 0
            while index < line.endIndex, line[index] == UInt8(ascii: " ") { indent += 1; index = line.index(after: index) }
            guard index < line.endIndex, line[index] != UInt8(ascii: "#"), line[index] != UInt8(ascii: "\r") else { continue }
            var depth = flowDepth
            if flowDepth == 0 {
                while let last = indents.last, last >= indent { indents.removeLast() }
                indents.append(indent)
                depth = indents.count
            }
            var quote: UInt8?
            var previous = UInt8(ascii: " ")
            var leading = true
            while index < line.endIndex {
                let byte = line[index]
                index = line.index(after: index)
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "#") && (previous == UInt8(ascii: " ") || previous == UInt8(ascii: "\t")) {
                    break
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    if previous == UInt8(ascii: " ") || previous == UInt8(ascii: "[") || previous == UInt8(ascii: "{")
                        || previous == UInt8(ascii: ",") || previous == UInt8(ascii: ":") { quote = byte }
                } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    flowDepth += 1
                    depth += 1
                } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                    flowDepth = max(0, flowDepth - 1)
                } else if leading && (byte == UInt8(ascii: "-") || byte == UInt8(ascii: "?"))
                            && (index == line.endIndex || line[index] == UInt8(ascii: " ")) {
                    depth += 1  // a compact nested entry: "- - - x" opens three sequences
                } else if byte != UInt8(ascii: " ") {
                    leading = false
                }
                previous = byte
                if depth > limit { return (depth, lineNumber) }
            }
            if depth > limit { return (depth, lineNumber) }
        }
        return nil
    }
}
