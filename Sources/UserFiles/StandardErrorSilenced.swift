import Foundation

/// Standard error pointed at /dev/null while a library that prints its own log lines loads
/// (liblsl's loguru, LiteRT's environment; control thread, before the run's threads start).
public enum StandardErrorSilenced {
    public static func during<T>(_ body: () -> T) -> T {
        let (quiet, saved) = (open("/dev/null", O_WRONLY), dup(STDERR_FILENO))
        if quiet >= 0, saved >= 0 { dup2(quiet, STDERR_FILENO) }
        defer {
            if quiet >= 0, saved >= 0 { dup2(saved, STDERR_FILENO) }
            for descriptor in [quiet, saved] where descriptor >= 0 { close(descriptor) }
        }
        return body()
    }
}
