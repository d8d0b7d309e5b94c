import Foundation
import UserFiles

/// A preset copied into a folder of the user's to edit: its folder as it is, with every path in
/// its `preset.yaml` that leaves the folder (`../sounds/bell.wav`, `../voices/tap.yaml`) made
/// absolute, so the copy plays the same sounds from its new place.
public enum PresetCopy {
    /// Copies `source` (a preset folder) to `folder/name`; refuses to overwrite. Returns the copy's folder.
    public static func copy(_ source: String, named name: String, into folder: String) throws -> String {
        let target = folder + "/" + name
        guard !FileManager.default.fileExists(atPath: target) else {
            throw InputError(file: target, "a preset of that name is already there (edit it, or remove it to copy again)")
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source, toPath: target)
        } catch {
            throw InputError(file: target, "cannot copy the preset here: \(error.localizedDescription)")
        }
        let file = target + "/preset.yaml"
        let text = String(decoding: try UserFile.read(file, what: "preset"), as: UTF8.self)
        let anchoredText = anchored(text, from: source)
        let rewritten = name == URL(fileURLWithPath: source).lastPathComponent ? anchoredText : renamed(anchoredText, to: name)
        guard rewritten != text else { return target }
        do { try rewritten.write(toFile: file, atomically: true, encoding: .utf8) } catch {
            throw InputError(file: file, "cannot write the copied preset: \(error.localizedDescription)")
        }
        return target
    }

    /// `text` with its top-level `name:` (if it has one) set to `name`, its comment kept: the copy
    /// says it plays the name it was copied as.
    static func renamed(_ text: String, to name: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("name:") else { return String(line) }
            let comment = commentStart(line)
            return "name: \(name)" + (comment < line.endIndex ? "  " + line[comment...] : "")
        }.joined(separator: "\n")
    }

    /// `text` with each value that starts with `../` (plain or quoted, in block or flow style)
    /// replaced by the absolute path it names from `folder`.
    static func anchored(_ text: String, from folder: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { whole in
            let comment = commentStart(whole)
            var out = ""
            var rest = whole[whole.startIndex..<comment]
            while let range = rest.range(of: "../") {
                let before = rest[rest.startIndex..<range.lowerBound]
                // A value begins after a space, a quote or a flow bracket.
                let opening = before.last
                if let opening, !" \t[{,\"'".contains(opening) {
                    out += rest[rest.startIndex..<range.upperBound]
                    rest = rest[range.upperBound...]
                    continue
                }
                let stops: Set<Character> = opening == "\"" || opening == "'" ? [opening!] : [",", "}", "]", " ", "\t"]
                let end = rest[range.lowerBound...].firstIndex { stops.contains($0) } ?? rest.endIndex
                out += before + LoadedPreset.resolve(String(rest[range.lowerBound..<end]), in: folder)
                rest = rest[end...]
            }
            return out + rest + whole[comment...]
        }.joined(separator: "\n")
    }

    /// Where a YAML comment starts in `line` (a `#` at its start or after a space, outside quotes);
    /// its end when there is none.
    private static func commentStart(_ line: Substring) -> Substring.Index {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" && (previous == " " || previous == "\t") {
                return index
            }
            previous = character
        }
        return line.endIndex
    }
}
