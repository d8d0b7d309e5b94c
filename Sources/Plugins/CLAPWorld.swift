import Synchronization
import CCLAP
import Foundation

/// The CLAP plugins installed here: every `.clap` bundle on the specification's search path
/// (`CLAP_PATH`, then `~/.clap`, then `/usr/lib/clap`, each searched to any depth), loaded once
/// for the process, and the plugins their factories offer. A plugin is named `clap:ID` wherever
/// pulsejack takes a plugin URI. Control threads; the C side holds the catalog behind a mutex.
package enum CLAPWorld {
    /// The prefix that makes a plugin name a CLAP id.
    package static let scheme = "clap:"

    /// The id in `clap:ID`, or nil for an LV2 URI.
    package static func id(of uri: String) -> String? {
        uri.hasPrefix(scheme) ? String(uri.dropFirst(scheme.count)) : nil
    }

    package struct Plugin: Sendable, Equatable {
        package var id: String
        package var name: String
        package var vendor: String
        package var version: String
        package var path: String
        package var isInstrument: Bool
        package var uri: String { CLAPWorld.scheme + id }
    }

    /// The folders searched, in order.
    package static var searchPath: [String] {
        var folders: [String] = []
        if let path = ProcessInfo.processInfo.environment["CLAP_PATH"] {
            folders += path.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        folders.append(FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".clap").path)
        folders.append("/usr/lib/clap")
        return folders
    }

    private static let scanned = Mutex<Scan>(Scan())
    private struct Scan {
        var folders: [String] = []
        var problems: [String] = []
    }

    /// Every plugin on the search path (bundles not loaded yet are loaded now), and the bundles
    /// that could not be loaded, one line each.
    package static func plugins() -> (plugins: [Plugin], problems: [String]) {
        let problems = scan()
        var found: [Plugin] = []
        for index in 0..<pj_clap_catalog_count() {
            let entry = pj_clap_catalog_entry(index)
            guard let id = entry.id else { continue }
            found.append(Plugin(id: String(cString: id), name: String(cString: entry.name), vendor: String(cString: entry.vendor),
                                version: String(cString: entry.version), path: String(cString: entry.path),
                                isInstrument: entry.instrument != 0))
        }
        return (found, problems)
    }

    /// The plugin with `id`, or the error naming the closest ids installed.
    package static func plugin(_ id: String) throws -> Plugin {
        let (all, problems) = plugins()
        if let found = all.first(where: { $0.id == id }) { return found }
        let closest = PluginCatalog.closest(to: id, among: all.map(\.id))
        let said = problems.isEmpty ? "" : " (\(problems.count) bundle\(problems.count == 1 ? "" : "s") would not load: \(problems[0]))"
        throw PluginError(closest.isEmpty
            ? "no CLAP plugin \(id) (none are installed here; CLAP_PATH lists where to look)\(said)"
            : "no CLAP plugin \(id); the closest installed: \(closest.map { scheme + $0 }.joined(separator: ", "))\(said)")
    }

    /// Loads the bundles on the search path not loaded before; the problems so far.
    private static func scan() -> [String] {
        scanned.withLock { scan in
            for folder in searchPath where !scan.folders.contains(folder) {
                scan.folders.append(folder)
                for file in bundles(in: folder) {
                    var error = [CChar](repeating: 0, count: 512)
                    if pj_clap_load_bundle(file, &error, error.count) != 0 {
                        scan.problems.append("\(file): \(text(error))")
                    }
                }
            }
            return scan.problems
        }
    }

    /// The `.clap` files under `folder`, sorted (a bundle is a file on Linux).
    private static func bundles(in folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            if relative.hasSuffix(".clap") { files.append("\(folder)/\(relative)") }
        }
        return files.sorted()
    }

    /// The C string in `buffer`.
    static func text(_ buffer: [CChar]) -> String { buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } }

    /// A parameter's name as a control symbol: lower case, words joined by `_` ("Delay Time" →
    /// `delay_time`); a name taken already gets its id after it.
    static func symbols(of names: [(name: String, id: UInt32)]) -> [String] {
        var taken = Set<String>(), symbols: [String] = []
        for (name, id) in names {
            let words = name.lowercased().split { !($0.isLetter || $0.isNumber) }
            var symbol = words.joined(separator: "_")
            if symbol.isEmpty || symbol.first!.isNumber { symbol = "p" + symbol }
            if taken.contains(symbol) { symbol += "_\(id)" }
            taken.insert(symbol)
            symbols.append(symbol)
        }
        return symbols
    }
}
