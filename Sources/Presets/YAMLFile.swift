import UserFiles
import Inputs
import Foundation
import Yams

/// Decodes a YAML file with Codable, refusing unknown keys, and records the line of every
/// field (keyed like "voices[1].gain") so that errors can name it. Control thread.
package enum YAMLFile {
    static func decode<T: Decodable>(_ type: T.Type, file: String, rootKeys: [String]) throws -> (T, [String: Int]) {
        let data = try UserFile.read(file, what: "preset")
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(file: file, "cannot read the file (not UTF-8 text)")
        }
        // Yams composes recursively: a document nested thousands deep would overflow the stack.
        if let (depth, line) = YAMLNesting.firstLineDeeperThan(YAMLNesting.maximumDepth, in: text) {
            throw InputError(file: file, line: line, "nested \(depth) deep (at most \(YAMLNesting.maximumDepth))")
        }
        let node: Node
        do {
            guard let composed = try Yams.compose(yaml: text) else { throw InputError(file: file, "the file is empty") }
            node = composed
        } catch let error as YamlError {
            throw describe(error, file: file)
        }
        if let (key, line) = firstRepeatedKey(in: node) {
            throw InputError(file: file, line: line, field: key, "set twice in one mapping (the later would silently win)")
        }
        var lines: [String: Int] = [:]
        try checkKeys(node, file: file, rootKeys: Set(rootKeys), lines: &lines)
        do {
            return (try YAMLDecoder().decode(T.self, from: text), lines)
        } catch let error as DecodingError {
            throw describe(error, file: file, lines: lines, in: node)
        }
    }

    /// The first key a mapping anywhere in `node` holds twice, and the line of its second.
    static func firstRepeatedKey(in node: Node) -> (String, Int?)? {
        if let mapping = node.mapping {
            var seen = Set<String>()
            for (key, value) in mapping {
                let name = key.string ?? "\(key)"
                if !seen.insert(name).inserted { return (name, key.mark?.line) }
                if let found = firstRepeatedKey(in: value) { return found }
            }
        }
        for item in node.sequence ?? [] { if let found = firstRepeatedKey(in: item) { return found } }
        return nil
    }

    /// What stands at `path` in `node`, in words ("a list", "a mapping", "nothing", "'text'").
    static func found(at path: [CodingKey], in node: Node) -> String? {
        var current = node
        for key in path {
            if let index = key.intValue, let items = current.sequence, index < items.count {
                current = items[index]
            } else if let mapping = current.mapping, let value = mapping.first(where: { $0.key.string == key.stringValue })?.value {
                current = value
            } else {
                return nil
            }
        }
        if current.sequence != nil { return "a list" }
        if current.mapping != nil { return "a mapping" }
        guard let scalar = current.scalar else { return nil }
        if ["", "~", "null", "Null", "NULL"].contains(scalar.string) && scalar.style == .plain { return "nothing" }
        return "'\(scalar.string.prefix(40))'"
    }

    /// Records each field's line and refuses keys the format does not have (a typo would
    /// otherwise be ignored without a word).
    private static func checkKeys(_ node: Node, file: String, rootKeys: Set<String>, lines: inout [String: Int]) throws {
        guard node.mapping != nil else {
            throw InputError(file: file, line: node.mark?.line, "expected a mapping of fields (\(rootKeys.sorted().joined(separator: ", ")))")
        }
        try checkFields(of: node, at: "", known: rootKeys, file: file, lines: &lines) { name, value, lines in
            if ["midi_cc", "midi_regions", "regions", "mode_sounds"].contains(name), let map = value.mapping {
                for (key, _) in map { lines["\(name).\(key.string ?? "")"] = key.mark?.line }
            }
            for (index, item) in (value.sequence ?? []).enumerated() { lines["\(name)[\(index)]"] = item.mark?.line }
            switch name {
            case "modulations": try checkModulations(value, file: file, lines: &lines)
            case "master":
                try checkFields(of: value, at: "master", known: Set(Preset.Master.CodingKeys.allCases.map(\.rawValue)), file: file,
                                lines: &lines) { field, value, lines in
                    if field == "inserts" { try checkInserts(value, at: "master.inserts", file: file, lines: &lines) }
                }
            case "sensors":
                try checkFields(of: value, at: "sensors", known: Set(Preset.Sensors.CodingKeys.allCases.map(\.rawValue)), noun: "sensor",
                                file: file, lines: &lines)
            case "settings":
                for (voiceName, fields) in value.mapping ?? [:] {
                    lines["settings.\(voiceName.string ?? "")"] = voiceName.mark?.line
                    try checkFields(of: fields, at: "settings.\(voiceName.string ?? "")", known: settingKeys, noun: "setting", file: file, lines: &lines)
                }
            case "voices":
                for (index, voice) in (value.sequence ?? []).enumerated() { try checkVoice(voice, index: index, file: file, lines: &lines) }
            default: break
            }
        }
    }

    /// What a voice's `settings:` entry may set.
    private static let settingKeys: Set<String> = ["mute", "enabled", "gain", "pan", "every", "subdivide", "velocity"]

    /// Each key of `node`'s mapping, at `path`: one not in `known` is the error "unknown NOUN
    /// (known: …)" naming its line; each known one's line is recorded and `each` is given it.
    private static func checkFields(of node: Node, at path: String, known: Set<String>, noun: String = "field", file: String,
                                    lines: inout [String: Int],
                                    each: (String, Node, inout [String: Int]) throws -> Void = { _, _, _ in }) throws {
        for (key, value) in node.mapping ?? [:] {
            let field = key.string ?? ""
            let place = path.isEmpty ? field : "\(path).\(field)"
            guard known.contains(field) else {
                throw InputError(file: file, line: key.mark?.line, field: place, "unknown \(noun) (known: \(known.sorted().joined(separator: ", ")))")
            }
            lines[place] = key.mark?.line
            try each(field, value, &lines)
        }
    }

    /// A `modulations:` list: each entry's fields and its `on_dropout:` fields.
    private static func checkModulations(_ node: Node, file: String, lines: inout [String: Int]) throws {
        let known = Set(ModulationEntry.CodingKeys.allCases.map(\.rawValue))
        let dropoutKeys = Set(ModulationEntry.OnDropout.CodingKeys.allCases.map(\.rawValue))
        for (index, item) in (node.sequence ?? []).enumerated() {
            try checkFields(of: item, at: "modulations[\(index)]", known: known, file: file, lines: &lines) { field, value, lines in
                guard field == "on_dropout" else { return }
                try checkFields(of: value, at: "modulations[\(index)].on_dropout", known: dropoutKeys, file: file, lines: &lines)
            }
        }
    }

    /// One voice of `voices:`: its fields, their lines down to a mapping's keys and a list's
    /// items, and its inserts.
    private static func checkVoice(_ voice: Node, index: Int, file: String, lines: inout [String: Int]) throws {
        try checkFields(of: voice, at: "voices[\(index)]", known: VoiceKinds.allKeys, file: file, lines: &lines) { field, value, lines in
            if field == "inserts" { try checkInserts(value, at: "voices[\(index)].inserts", file: file, lines: &lines) }
            for (symbol, _) in value.mapping ?? [:] {
                lines["voices[\(index)].\(field).\(symbol.string ?? "")"] = symbol.mark?.line
            }
            for (item, element) in (value.sequence ?? []).enumerated() {
                lines["voices[\(index)].\(field)[\(item)]"] = element.mark?.line
            }
        }
    }

    /// An `inserts:` list: each item's lines, down to its control symbols, and no unknown key.
    private static func checkInserts(_ node: Node, at path: String, file: String, lines: inout [String: Int]) throws {
        for (index, item) in (node.sequence ?? []).enumerated() {
            lines["\(path)[\(index)]"] = item.mark?.line
            try checkFields(of: item, at: "\(path)[\(index)]", known: Set(Preset.Insert.CodingKeys.allCases.map(\.rawValue)), file: file,
                            lines: &lines) { field, value, lines in
                for (symbol, _) in value.mapping ?? [:] {
                    lines["\(path)[\(index)].\(field).\(symbol.string ?? "")"] = symbol.mark?.line
                }
            }
        }
    }

    private static func describe(_ error: YamlError, file: String) -> InputError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            return InputError(file: file, line: mark.line, "not valid YAML: \(problem)")
        default:
            return InputError(file: file, "not valid YAML: \(error)")
        }
    }

    private static func describe(_ error: DecodingError, file: String, lines: [String: Int], in node: Node) -> InputError {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
                .joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        func lineFor(_ field: String) -> Int? {
            var candidate = field
            while !candidate.isEmpty {
                if let line = lines[candidate] { return line }
                guard let cut = candidate.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
                candidate = String(candidate[..<cut])
            }
            return nil
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return InputError(file: file, line: lineFor(field), field: field, "missing")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            let expected = type == String.self ? "text" : type == Bool.self ? "true or false"
                : type == Int.self ? "a whole number" : "\(type)".hasPrefix("Array") ? "a list" : "a number"
            let what = found(at: context.codingPath, in: node).map { ", found \($0)" } ?? ""
            return InputError(file: file, line: lineFor(field), field: field, "expected \(expected)\(what)")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if field.hasSuffix(".kind") {
                return InputError(file: file, line: lineFor(field), field: field,
                                  "unknown voice kind (known: \(VoiceKinds.all.map(\.kind.rawValue).joined(separator: ", ")))")
            }
            return InputError(file: file, line: lineFor(field), field: field, context.debugDescription)
        @unknown default:
            return InputError(file: file, "\(error)")
        }
    }
}
