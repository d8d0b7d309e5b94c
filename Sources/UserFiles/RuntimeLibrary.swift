import Foundation

/// A library Debian does not package (liblsl, LiteRT), loaded with dlopen when a feature needs it,
/// so pulsejack runs without it. Where it is looked for, in order: its environment variable (a
/// file; then nowhere else), the dynamic loader's own search (its file name), an installation's
/// `lib/pulsejack/` beside the binary's `bin/`, and the clone's venv, where `make deps` installs
/// the pinned wheel that carries it.
public struct RuntimeLibrary: Sendable {
    public let variable: String
    public let fileName: String
    /// Its path inside a wheel's site-packages.
    public let venvFile: String

    public init(variable: String, fileName: String, venvFile: String) {
        self.variable = variable
        self.fileName = fileName
        self.venvFile = venvFile
    }

    var chosen: String? { ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 } }

    /// The files tried, in order.
    public func candidates() -> [String] {
        if let chosen { return [chosen] }
        return [fileName, Installation.prefix.appendingPathComponent("lib/pulsejack/" + fileName).path] + Self.venvFiles(venvFile)
    }

    /// The first candidate `open` loads (it answers nil, or why not), or the reasons worth telling:
    /// those of files that exist, and of the variable's file.
    public func firstLoading(_ open: (String) -> String?) -> Result<String, Unloaded> {
        var reasons: [String] = []
        for path in candidates() {
            if path.hasPrefix("/") && !FileManager.default.fileExists(atPath: path) {
                if chosen != nil { reasons.append("\(variable)=\(path): no such file") }
                continue
            }
            guard let reason = open(path) else { return .success(path) }
            if path.hasPrefix("/") || chosen != nil { reasons.append(reason) }
        }
        return .failure(Unloaded(reasons: reasons))
    }

    /// Why no candidate loaded: the reasons worth telling (none when no file was found).
    public struct Unloaded: Error {
        public let reasons: [String]

        /// `howToGet`, with the reasons in brackets.
        public func said(_ howToGet: String) -> String {
            reasons.isEmpty ? howToGet : howToGet + " (" + reasons.joined(separator: "; ") + ")"
        }
    }

    /// A file inside the clone's venv's site-packages, for each Python there.
    public static func venvFiles(_ relative: String) -> [String] {
        guard let venv = Installation.cloneRoot?.appendingPathComponent(".build/venv/lib") else { return [] }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: venv.path)) ?? []).sorted().filter { $0.hasPrefix("python") }
        return versions.map { venv.appendingPathComponent("\($0)/site-packages/" + relative).path }
    }
}

extension String {
    /// A C library's message from a zero-terminated buffer we handed it.
    public init(message buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
