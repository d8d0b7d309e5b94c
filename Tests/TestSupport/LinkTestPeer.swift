import Foundation

/// LinkPython-extern (Link 4), from the pinned wheel in the project's venv (`make test`
/// installs it), as Ableton Link's independent peer (`scripts/link/peer.py`), started inside the
/// test's own network namespace as pylsl's peer is (`LSLPeer`): "ready" once joined.
public enum LinkTestPeer {
    public static var script: String { Subprocess.repository.appendingPathComponent("scripts/link/peer.py").path }

    /// Why Link's peer cannot run here (nil: it can).
    public static let missing: String? = {
        guard FileManager.default.isExecutableFile(atPath: LSLPeer.python),
              let check = try? Subprocess.run(LSLPeer.python, ["-c", "import link; link.Link(120)"], timeout: 30), check.status == 0 else {
            return "LinkPython-extern is not in .build/venv: `make test` installs the pinned wheel (scripts/link/requirements.txt)"
        }
        return LabNetwork.missing
    }()

    /// `peer.py ARGUMENTS` inside `network`, joined.
    public static func start(_ arguments: [String], network: LabNetwork) throws -> LSLPeer {
        try LSLPeer(arguments, network: network, script: script)
    }
}
