import CBuildStamp

/// The commit this binary was built from (`git describe --always --dirty`, as `make` wrote it
/// into CBuildStamp's commit.h), or "unknown commit" for a plain `swift build`.
public enum BuildStamp {
    public static let commit = String(cString: pj_build_commit())
}
