import CLiteRT
import Foundation
import Realtime
import UserFiles

/// LiteRT, loaded at run time: Debian has no LiteRT, so pulsejack runs without it and only
/// `--pose` and `pulsejack pose` need it. Where it is looked for, in order: `PULSEJACK_LITERT`
/// (a file), the dynamic loader's own search (`libLiteRt.so`), an installation's
/// `lib/pulsejack/`, and the clone's venv, where `make deps` installs the pinned `ai-edge-litert`
/// wheel that carries it.
public enum LiteRTLibrary {
    static let fileName = "libLiteRt.so"

    /// What `--pose` without the library says, in one line.
    public static var howToGet: String {
        let own = "or set PULSEJACK_LITERT=/path/to/libLiteRt.so (the ai-edge-litert wheel's ai_edge_litert/libLiteRt.so)"
        if Installation.builtInClone { return "LiteRT is not installed: `make deps` puts it in the clone's venv (the pinned ai-edge-litert wheel), " + own }
        return "LiteRT is not installed: pulsejack looks for it at \(Installation.prefix.appendingPathComponent("lib/pulsejack/" + fileName).path) "
            + "(reinstall pulsejack's package, which carries it), " + own
    }

    static let library = RuntimeLibrary(variable: "PULSEJACK_LITERT", fileName: fileName, venvFile: "ai_edge_litert/" + fileName)
    private static let loaded = Once<String, PoseError>()

    /// Any thread. Loads the library once; the file it came from, or why it could not be.
    @discardableResult
    public static func load() throws(PoseError) -> String {
        try loaded.value {
            let found = library.firstLoading { path in
                var error = [CChar](repeating: 0, count: 512)
                // LiteRT's own log lines (its environment's) would land on our standard error.
                return StandardErrorSilenced.during { pj_litert_load(path, &error, error.count) == 0 } ? nil : String(message: error)
            }
            return found.mapError { PoseError($0.said(howToGet)) }
        }
    }
}

/// A problem with pose: the library, a model, a video, a camera.
public struct PoseError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

