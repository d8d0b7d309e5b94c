import UserFiles

/// What `pulsejack --version` prints: the release, and the commit it was built from.
enum Version {
    /// The release; `make deb` names the package after it.
    static let release = "0.9.0"
    static let described = "\(release) (\(BuildStamp.commit))"
}
