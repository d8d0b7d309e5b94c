import Foundation

/// liblsl's configuration as the lab wrote it, with only pulsejack's log settings added. liblsl
/// reads the first readable of `LSLAPICFG`, `./lsl_api.cfg`, `~/lsl_api/lsl_api.cfg` and
/// `/etc/lsl_api/lsl_api.cfg` (its `api_config.cpp`); `lsl_set_config_content` replaces that
/// whole file, so pulsejack reads the same file itself and hands liblsl its text plus a `[log]`
/// section: `level = -1` (warnings and errors, not liblsl's INFO lines) unless the lab set a
/// level, and `file` (pulsejack's pipe, whose lines it prints as its own) unless the lab set one.
/// The lab's session, scopes and known peers stay the lab's.
public struct LSLConfiguration: Equatable, Sendable {
    /// The lab's file (nil: none, liblsl's defaults) and its text.
    public var file: String?
    public var text: String
    /// Why the lab's file could not be taken (liblsl would fall back to its defaults too), naming its line.
    public var problem: String?
    /// The keys `text` sets (`section.key`), read once.
    private let keys: Set<String>

    public init(file: String?, text: String, problem: String? = nil) {
        (self.file, self.text, self.problem) = (file, text, problem)
        keys = (try? Self.keys(text)) ?? []
    }

    /// liblsl's search, in its order; the first readable file.
    public static func labFile(environment: [String: String], currentDirectory: String) -> String? {
        var candidates: [String] = []
        if let own = environment["LSLAPICFG"] { candidates.append(own) }
        candidates.append(currentDirectory + "/lsl_api.cfg")
        if let home = environment["HOME"] { candidates.append(home + "/lsl_api/lsl_api.cfg") }
        candidates.append("/etc/lsl_api/lsl_api.cfg")
        return candidates.first { FileManager.default.isReadableFile(atPath: $0) && !Self.isFolder($0) }
    }

    private static func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }

    /// The lab's configuration as liblsl would find it.
    public static func lab(environment: [String: String] = ProcessInfo.processInfo.environment,
                           currentDirectory: String = FileManager.default.currentDirectoryPath) -> LSLConfiguration {
        guard let file = labFile(environment: environment, currentDirectory: currentDirectory) else { return LSLConfiguration(file: nil, text: "") }
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            return LSLConfiguration(file: file, text: "", problem: "\(file): cannot be read as text; liblsl uses its defaults")
        }
        do {
            _ = try keys(text)
            return LSLConfiguration(file: file, text: text)
        } catch {
            return LSLConfiguration(file: file, text: "", problem: "\(file):\(error.line): \(error.reason); liblsl uses its defaults")
        }
    }

    public struct SyntaxError: Error {
        public var line: Int
        public var reason: String
    }

    /// The keys (`section.key`) of an lsl_api.cfg, read as liblsl's INI reader reads it: `;`
    /// comments, `[section]`, `key = value`, and a repeated key refused.
    static func keys(_ text: String) throws(SyntaxError) -> Set<String> {
        var keys = Set<String>(), section = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if raw.hasPrefix(";") || line.isEmpty { continue }
            if raw.hasPrefix("[") {
                guard let close = raw.firstIndex(of: "]") else { throw SyntaxError(line: index + 1, reason: "no closing ] on a section") }
                section = raw[raw.index(after: raw.startIndex)..<close] + "."
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { throw SyntaxError(line: index + 1, reason: "not a key = value line") }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw SyntaxError(line: index + 1, reason: "a value without a key") }
            guard !value.isEmpty else { throw SyntaxError(line: index + 1, reason: "'\(key)' has no value") }
            guard keys.insert(section + key).inserted else { throw SyntaxError(line: index + 1, reason: "'\(section + key)' is set twice") }
        }
        return keys
    }

    /// The text liblsl is given: the lab's, and the log settings it left out (`logFile`: where
    /// liblsl's lines go, for pulsejack to print).
    public func content(logFile: String?) -> String {
        var added: [String] = []
        if !keys.contains("log.level") { added.append("level = -1") }
        if !keys.contains("log.file"), let logFile { added.append("file = \(logFile)") }
        guard !added.isEmpty else { return text }
        return text + (text.isEmpty || text.hasSuffix("\n") ? "" : "\n") + "[log]\n" + added.joined(separator: "\n") + "\n"
    }

    /// Whether liblsl's log goes to pulsejack (the lab named no file of its own).
    public var logsThroughPulsejack: Bool { !keys.contains("log.file") }
}
