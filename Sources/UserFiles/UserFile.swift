import Foundation
import Glibc

/// The files a user names (presets, sessions, sounds): opened only when they are regular files.
/// A FIFO would block the read forever, and a device or a folder is a mistake to say so. Control
/// thread.
public enum UserFile {
    /// Throws one clear error unless `path` is a regular file (links are followed).
    public static func requireRegular(_ path: String, what: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw InputError(file: path, "cannot read the \(what) (missing or unreadable)")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            let name = kind == S_IFIFO ? "a FIFO" : kind == S_IFDIR ? "a folder" : kind == S_IFCHR || kind == S_IFBLK ? "a device"
                : kind == S_IFSOCK ? "a socket" : "not a regular file"
            throw InputError(file: path, "the \(what) is \(name), not a regular file: refused")
        }
    }

    /// The whole file, once it is known to be a regular file.
    public static func read(_ path: String, what: String) throws -> Data {
        try requireRegular(path, what: what)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read the \(what) (missing or unreadable)")
        }
        return data
    }
}
