import CLSL
import Foundation
import Realtime
import UserFiles

/// liblsl, loaded at run time: the library is not a Debian package, so pulsejack runs without
/// it, and only `--lsl`, `lsl:` sensors and `lsl.` sources need it. Where it is looked for, in
/// order: `PULSEJACK_LIBLSL` (a file), the dynamic loader's own search (`liblsl.so.2`: liblsl's
/// .deb, or `LD_LIBRARY_PATH`), an installation's `lib/pulsejack/` beside the binary's `bin/`,
/// and the clone's venv, where `make deps` installs the pinned `pylsl` wheel that carries it.
public enum LSLLibrary {
    /// What `--lsl` without the library says, in one line: in a clone, how the clone gets it; an
    /// installed binary, where its package puts it.
    public static var howToGet: String {
        let own = "or install liblsl's own package (github.com/sccn/liblsl/releases), or set PULSEJACK_LIBLSL=/path/to/liblsl.so.2"
        if Installation.builtInClone {
            return "liblsl is not installed: `make deps` puts it in the clone's venv (the pinned pylsl wheel), " + own
        }
        return "liblsl is not installed: pulsejack looks for it at \(Installation.prefix.appendingPathComponent("lib/pulsejack/liblsl.so.2").path) "
            + "(reinstall pulsejack's package, which carries it), " + own
    }

    static let library = RuntimeLibrary(variable: "PULSEJACK_LIBLSL", fileName: "liblsl.so.2", venvFile: "pylsl/lib/liblsl.so.2")
    private static let loaded = Once<String, LSLError>()

    /// Any thread. Loads the library once; the file it came from, or why it could not be.
    @discardableResult
    public static func load() throws(LSLError) -> String {
        try loaded.value(attempt)
    }

    /// The files tried, in order.
    static func candidates() -> [String] { library.candidates() }

    /// Where pulsejack says liblsl's lines and its own about the configuration (standard error).
    static let say: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }

    /// The lab's configuration with the log quieted and said through pulsejack (`LSLConfiguration`),
    /// before liblsl reads any.
    private static func configure() {
        // The threads made here (the log's reader, any of liblsl's) must never take a stop signal
        // meant for the run's signal thread: they start with every signal blocked.
        var all = sigset_t(), before = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        let lab = LSLConfiguration.lab()
        if let problem = lab.problem { say("pulsejack: LSL: " + problem) }
        let logFile = lab.logsThroughPulsejack ? LSLLogRelay.start(say: say) : nil
        pj_lsl_set_config_content(lab.content(logFile: logFile))
        guard logFile != nil else { return }
        // loguru announces a new log file on standard error ("Logging to …", INFO) before liblsl
        // applies the configured verbosity: the configuration is read now (the protocol version
        // reads it), at load, with that one line sent nowhere.
        _ = StandardErrorSilenced.during { pj_lsl_protocol_version() }
    }

    private static func attempt() -> Result<String, LSLError> {
        let found = library.firstLoading { path in
            var error = [CChar](repeating: 0, count: 512)
            return pj_lsl_load(path, &error, error.count) == 0 ? nil : String(message: error)
        }
        switch found {
        case .success(let path):
            configure()
            return .success(path)
        case .failure(let unloaded):
            return .failure(LSLError(unloaded.said(howToGet)))
        }
    }
}

/// A problem with LSL: the library, a stream, a request.
public struct LSLError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
