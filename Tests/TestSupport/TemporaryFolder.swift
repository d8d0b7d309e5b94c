import Foundation

/// A folder of one test's own under the system's temporary folder: a name no other test or run
/// shares (the process and a UUID in it), made at once, removed by `remove()` (in a `defer`).
public struct TemporaryFolder: Sendable {
    public let url: URL
    public var path: String { url.path }

    /// `name` says whose it is ("save", "grid").
    public init(_ name: String) throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("pulsejack-\(name)-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside it.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
