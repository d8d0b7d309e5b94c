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
        guard let root = node.mapping else {
            throw InputError(file: file, line: node.mark?.line, "expected a mapping of fields (\(rootKeys.sorted().joined(separator: ", ")))")
        }
        let voiceKeys = VoiceKinds.allKeys
        for (key, value) in root {
            let name = key.string ?? ""
            guard rootKeys.contains(name) else {
                throw InputError(file: file, line: key.mark?.line, field: name,
                                 "unknown field (known: \(rootKeys.sorted().joined(separator: ", ")))")
            }
            lines[name] = key.mark?.line
            if ["midi_cc", "midi_regions", "regions", "mode_sounds"].contains(name), let map = value.mapping {
                for (key, _) in map { lines["\(name).\(key.string ?? "")"] = key.mark?.line }
            }
            if let items = value.sequence {
                for (index, item) in items.enumerated() { lines["\(name)[\(index)]"] = item.mark?.line }
            }
            if name == "modulations", let items = value.sequence {
                let known = Set(ModulationEntry.CodingKeys.allCases.map(\.rawValue))
                for (index, item) in items.enumerated() {
                    for (key, value) in item.mapping ?? [:] {
                        let field = key.string ?? ""
                        lines["modulations[\(index)].\(field)"] = key.mark?.line
                        guard known.contains(field) else {
                            throw InputError(file: file, line: key.mark?.line, field: "modulations[\(index)].\(field)",
                                             "unknown field (known: \(known.sorted().joined(separator: ", ")))")
                        }
                        guard field == "on_dropout", let dropout = value.mapping else { continue }
                        let dropoutKeys = Set(ModulationEntry.OnDropout.CodingKeys.allCases.map(\.rawValue))
                        for (inner, _) in dropout {
                            let name = inner.string ?? ""
                            lines["modulations[\(index)].on_dropout.\(name)"] = inner.mark?.line
                            guard dropoutKeys.contains(name) else {
                                throw InputError(file: file, line: inner.mark?.line, field: "modulations[\(index)].on_dropout.\(name)",
                                                 "unknown field (known: \(dropoutKeys.sorted().joined(separator: ", ")))")
                            }
                        }
                    }
                }
            }
            if name == "master", let fields = value.mapping {
                let known = Set(Preset.Master.CodingKeys.allCases.map(\.rawValue))
                for (key, fieldValue) in fields {
                    let field = key.string ?? ""
                    lines["master.\(field)"] = key.mark?.line
                    if field == "inserts" { try checkInserts(fieldValue, at: "master.inserts", file: file, lines: &lines) }
                    guard known.contains(field) else {
                        throw InputError(file: file, line: key.mark?.line, field: "master.\(field)",
                                         "unknown field (known: \(known.sorted().joined(separator: ", ")))")
                    }
                }
            }
            if name == "settings", let settings = value.mapping {
                let settingKeys = Set(["mute", "enabled", "gain", "pan", "every", "subdivide", "velocity"])
                for (voiceName, fields) in settings {
                    lines["settings.\(voiceName.string ?? "")"] = voiceName.mark?.line
                    for (settingKey, _) in fields.mapping ?? [:] where !settingKeys.contains(settingKey.string ?? "") {
                        throw InputError(file: file, line: settingKey.mark?.line,
                                         field: "settings.\(voiceName.string ?? "").\(settingKey.string ?? "")",
                                         "unknown setting (known: \(settingKeys.sorted().joined(separator: ", ")))")
                    }
                }
            }
            guard name == "voices", let voices = value.sequence else { continue }
            for (index, voice) in voices.enumerated() {
                guard let fields = voice.mapping else { continue }
                for (voiceKey, fieldValue) in fields {
                    let field = voiceKey.string ?? ""
                    guard voiceKeys.contains(field) else {
                        throw InputError(file: file, line: voiceKey.mark?.line, field: "voices[\(index)].\(field)",
                                         "unknown field (known: \(voiceKeys.sorted().joined(separator: ", ")))")
                    }
                    lines["voices[\(index)].\(field)"] = voiceKey.mark?.line
                    if field == "inserts" { try checkInserts(fieldValue, at: "voices[\(index)].inserts", file: file, lines: &lines) }
                    for (symbol, _) in fieldValue.mapping ?? [:] {
                        lines["voices[\(index)].\(field).\(symbol.string ?? "")"] = symbol.mark?.line
                    }
                    for (item, element) in (fieldValue.sequence ?? []).enumerated() {
                        lines["voices[\(index)].\(field)[\(item)]"] = element.mark?.line
                    }
                }
            }
        }
    }

    /// An `inserts:` list: each item's lines, down to its control symbols, and no unknown key.
    private static func checkInserts(_ node: Node, at path: String, file: String, lines: inout [String: Int]) throws {
        let known: Set<String> = ["plugin", "controls", "bypass", "state", "isolate"]
        for (index, item) in (node.sequence ?? []).enumerated() {
            lines["\(path)[\(index)]"] = item.mark?.line
            for (key, value) in item.mapping ?? [:] {
                let field = key.string ?? ""
                lines["\(path)[\(index)].\(field)"] = key.mark?.line
                guard known.contains(field) else {
                    throw InputError(file: file, line: key.mark?.line, field: "\(path)[\(index)].\(field)",
                                     "unknown field (known: \(known.sorted().joined(separator: ", ")))")
                }
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
