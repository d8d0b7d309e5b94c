import Foundation
import TestSupport
import XCTest

/// `make install DESTDIR=…`, then the installed pulsejack with the Swift toolchain out of sight
/// (`env -i PATH=/usr/bin:/bin`): it renders from an empty folder, finds presets by name, says
/// its version, links no toolchain library, has a page for every command and completes in bash
/// and fish. `make uninstall` takes every file back.
final class InstallTests: XCTestCase {
    /// The tree `make install` wrote, made once for this class's tests.
    private static let installed = Result { try InstalledTree(prefix: "/usr/local") }

    override class func tearDown() { try? FileManager.default.removeItem(atPath: "/tmp/pjh\(getpid())") }

    private func tree() throws -> InstalledTree {
        try Packaging.require()
        return try Self.installed.get()
    }

    func testTheInstalledBinaryRendersFromAnEmptyFolderWithoutTheToolchain() throws {
        let tree = try tree()
        let folder = try TemporaryFolder("installed-demo")
        defer { folder.remove() }
        let demo = try tree.run(["demo"], in: folder.url)
        XCTAssertEqual(demo.status, 0, demo.stderr)
        // The same render as the clone's own build makes of the shipped default preset and session.
        let reference = try TemporaryFolder("clone-demo")
        defer { reference.remove() }
        let cloned = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", Shipped.presets.appendingPathComponent("default").path,
                                                               "--session", Shipped.presets.appendingPathComponent("default/demo-session.csv").path,
                                                               "--out", reference.file("demo.wav")])
        XCTAssertEqual(cloned.status, 0, cloned.stderr)
        try assertSameSound(folder.file("pulsejack-demo.wav"), reference.file("demo.wav"))

        // A preset by name, a session from the installed presets.
        let session = tree.root + "/share/pulsejack/presets/sessions/hands-rising.csv"
        let render = try tree.run(["render", "--preset", "tambour", "--session", session, "--out", "tambour.wav"], in: folder.url)
        XCTAssertEqual(render.status, 0, render.stderr)
        let clonedTambour = try Subprocess.run(Subprocess.pulsejack, ["render", "--preset", Shipped.presets.appendingPathComponent("tambour").path,
                                                                      "--session", Shipped.presets.appendingPathComponent("sessions/hands-rising.csv").path,
                                                                      "--out", reference.file("tambour.wav")])
        XCTAssertEqual(clonedTambour.status, 0, clonedTambour.stderr)
        try assertSameSound(folder.file("tambour.wav"), reference.file("tambour.wav"))

        let unknown = try tree.run(["render", "--preset", "nosuch", "--session", session, "--out", "x.wav"], in: folder.url)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.hasPrefix("pulsejack: error: nosuch: no preset of that name (searched /tmp/pjh\(getpid())/.config/pulsejack/presets, "
                                               + "/tmp/pjh\(getpid())/.local/share/pulsejack/presets, \(tree.root)/share/pulsejack/presets"), unknown.stderr)
    }

    func testTheInstalledBinaryListsItsPresetsAndSaysWhereItCameFrom() throws {
        let tree = try tree()
        let folder = try TemporaryFolder("installed-presets")
        defer { folder.remove() }
        let listed = try tree.run(["presets", "--json"], in: folder.url)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        struct Entry: Decodable { var name: String; var folder: String; var place: String }
        let entries = try JSONDecoder().decode([Entry].self, from: Data(listed.stdout.utf8))
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Shipped.presets.path)
            .filter { FileManager.default.fileExists(atPath: Shipped.presets.appendingPathComponent("\($0)/preset.yaml").path) }
        XCTAssertEqual(Set(entries.map(\.name)), Set(shipped))
        XCTAssertTrue(entries.allSatisfy { $0.place == "installed" && $0.folder == tree.root + "/share/pulsejack/presets/" + $0.name }, listed.stdout)

        // Run by name from PATH, as a shell finds it: liblsl is found beside it (lib/pulsejack), so
        // `--lsl` passes its check and the run stops only for want of a JACK server.
        let lsl = try Subprocess.run("/usr/bin/env", ["-i", "PATH=\(tree.root)/bin:/usr/bin:/bin", "HOME=/tmp/pjh\(getpid())", "JACK_DEFAULT_SERVER=pulsejack-none",
                                                      "pulsejack", "run", "--lsl", "--preset", "click", "--no-osc"], in: folder.url, timeout: 30)
        if FileManager.default.fileExists(atPath: tree.root + "/lib/pulsejack/liblsl.so.2") {
            XCTAssertTrue(lsl.stderr.contains("no JACK server 'pulsejack-none'") && !lsl.stderr.contains("liblsl"), lsl.stderr)
        }
        // Without it, the installed binary says where its package puts it (no clone's `make deps`),
        // and exits as a missing library does (EX_UNAVAILABLE), not as a usage error.
        let without = try Subprocess.run("/usr/bin/env", ["-i", "PATH=\(tree.root)/bin:/usr/bin:/bin", "HOME=/tmp/pjh\(getpid())", "PULSEJACK_LIBLSL=/nonexistent/liblsl.so.2",
                                                          "pulsejack", "run", "--lsl", "--preset", "click", "--no-osc"], in: folder.url, timeout: 30)
        XCTAssertEqual(without.status, 69, without.stderr)
        XCTAssertTrue(without.stderr.contains(tree.root + "/lib/pulsejack/liblsl.so.2") && !without.stderr.contains("make deps"), without.stderr)

        let version = try tree.run(["--version"], in: folder.url)
        let head = try Subprocess.run("/usr/bin/git", ["-C", Subprocess.repository.path, "rev-parse", "HEAD"]).stdout
        XCTAssertTrue(version.stdout.hasPrefix("0."), version.stdout)
        XCTAssertTrue(version.stdout.contains("(\(head.prefix(7))"), "the commit it was built from: \(version.stdout) \(head)")

        let ldd = try Subprocess.run("/usr/bin/ldd", [tree.root + "/bin/pulsejack"])
        XCTAssertEqual(ldd.status, 0, ldd.stderr)
        for toolchain in ["swift", "Foundation", "libdispatch", "BlocksRuntime", "/opt/", "not found"] {
            XCTAssertFalse(ldd.stdout.contains(toolchain), "ldd names \(toolchain):\n\(ldd.stdout)")
        }
        XCTAssertTrue(ldd.stdout.contains("libjack.so.0"), ldd.stdout)
    }

    /// A page for `pulsejack` and for each command `--help` lists, each rendering without a complaint.
    /// Camera pose from the installed tree alone (`env -i`, no clone's venv): LiteRT in
    /// `lib/pulsejack`, the two models in `share/pulsejack/pose`, FFmpeg's libraries from Debian.
    func testTheInstalledBinaryFindsItsPoseModelsAndLiteRT() throws {
        let tree = try tree()
        let folder = try TemporaryFolder("installed-pose")
        defer { folder.remove() }
        for file in ["lib/pulsejack/libLiteRt.so", "share/pulsejack/pose/pose_detection.tflite", "share/pulsejack/pose/pose_landmark_full.tflite"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: tree.root + "/" + file), "make install put \(file) there")
        }
        let pose = try tree.run(["pose", "--video", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "--stills", "--json"], in: folder.url)
        XCTAssertEqual(pose.status, 0, pose.stderr)
        let frame = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(pose.stdout.utf8)) as? [String: Any], pose.stdout)
        XCTAssertEqual((frame["landmarks"] as? [[Double]])?.count, 33, pose.stdout)
        XCTAssertEqual((frame["hands"] as? [Double])?.count, 4, pose.stdout)
    }

    func testEveryCommandHasAManPageThatRenders() throws {
        let tree = try tree()
        let help = try tree.run(["--help"], in: nil)
        let commands = help.stdout.components(separatedBy: "SUBCOMMANDS:").last!.components(separatedBy: "\n\n").first!.split(separator: "\n")
            .compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first.map(String.init) : nil }
        XCTAssertTrue(commands.contains("run") && commands.contains("presets") && commands.contains("render"), help.stdout)
        for page in ["pulsejack"] + commands.map({ "pulsejack.\($0)" }) {
            let file = "\(tree.root)/share/man/man1/\(page).1.gz"
            let shown = try Subprocess.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "MANWIDTH=100", "/usr/bin/man", "-l", file])
            XCTAssertEqual(shown.status, 0, "\(page): \(shown.stderr)")
            XCTAssertEqual(shown.stderr, "", page)
            XCTAssertTrue(shown.stdout.contains("NAME") && shown.stdout.contains("SYNOPSIS"), "\(page): \(shown.stdout.prefix(300))")
            XCTAssertTrue(shown.stdout.contains(page.replacingOccurrences(of: ".", with: " ")), page)
            let indexed = try Subprocess.run("/usr/bin/lexgrog", [file])
            XCTAssertEqual(indexed.status, 0, "man-db's index reads its NAME: \(indexed.stdout)")
        }
        let run = try Subprocess.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "MANWIDTH=100", "/usr/bin/man", "-l",
                                                      "\(tree.root)/share/man/man1/pulsejack.run.1.gz"]).stdout
        for option in ["--preset", "--wait-for-server", "--lsl", "--connect"] { XCTAssertTrue(run.contains(option), option) }
    }

    /// bash (with bash-completion, as an interactive shell loads it) completes the options and a
    /// preset's name; fish completes the options.
    func testTheShellsComplete() throws {
        let tree = try tree()
        let script = """
            source /usr/share/bash-completion/bash_completion
            source \(tree.root)/share/bash-completion/completions/pulsejack
            complete_line() {
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                read -r -a COMP_WORDS <<< "$COMP_LINE"
                [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                COMPREPLY=()
                _pulsejack pulsejack "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                echo "$1 => ${COMPREPLY[*]}"
            }
            complete_line "pulsejack run --pre"
            complete_line "pulsejack run --preset ta"
            complete_line "pulsejack render --preset tambour --solo sn"
            complete_line "pulsejack pre"
            """
        let bash = try tree.run(["-c", script], in: nil, executable: "/bin/bash")
        XCTAssertEqual(bash.status, 0, bash.stderr)
        let lines = bash.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, ["pulsejack run --pre => --predict-beats --preset", "pulsejack run --preset ta => tambour",
                               "pulsejack render --preset tambour --solo sn => snare1 snare2 snap", "pulsejack pre => presets"], bash.stderr)

        let fish = try tree.run(["-c", "source \(tree.root)/share/fish/vendor_completions.d/pulsejack.fish; complete -C'pulsejack run --pre'"],
                                in: nil, executable: "/usr/bin/fish")
        XCTAssertEqual(fish.status, 0, fish.stderr)
        XCTAssertEqual(fish.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }, ["--predict-beats", "--preset"])
        let zsh = try Subprocess.run("/usr/bin/zsh", ["-n", "\(tree.root)/share/zsh/vendor-completions/_pulsejack"])
        XCTAssertEqual(zsh.status, 0, "zsh reads its completion: \(zsh.stderr)")
    }

    func testMakeUninstallRemovesEveryFileItInstalled() throws {
        try Packaging.require()
        let tree = try InstalledTree(prefix: "/opt/pj")
        XCTAssertGreaterThan(tree.files().count, 50)
        let removed = try Subprocess.run("/usr/bin/make", ["-s", "uninstall", "DESTDIR=\(tree.destdir)", "PREFIX=/opt/pj"], in: Subprocess.repository)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(tree.files(), [], "left behind")
        try? FileManager.default.removeItem(atPath: tree.destdir)
    }

    /// Equal sample for sample: the installed release build and the clone's build render alike.
    private func assertSameSound(_ path: String, _ reference: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (made, expected) = (try WavFile(path: path), try WavFile(path: reference))
        XCTAssertEqual(made.frameCount, expected.frameCount, file: file, line: line)
        XCTAssertGreaterThan(made.frameCount, 48_000, file: file, line: line)
        XCTAssertEqual(made.channels.count, expected.channels.count, file: file, line: line)
        var largest: Float = 0
        for (ours, theirs) in zip(made.channels, expected.channels) {
            for (a, b) in zip(ours, theirs) { largest = max(largest, abs(a - b)) }
        }
        XCTAssertLessThan(largest, 1e-5, "the release build sounds as the debug build does", file: file, line: line)
        XCTAssertGreaterThan(made.channels[0].map(abs).max() ?? 0, 0.05, "not silence", file: file, line: line)
    }
}

/// The packaging tests run once, on jackd2's pass of `make test`.
enum Packaging {
    static func require() throws {
        try TestServer.requireJackd2("make install and the package are tested once, on jackd2's pass")
        if ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil {
            throw XCTSkip("under ThreadSanitizer: make install and the package are tested by make test (nothing here runs two threads of ours)")
        }
    }
}

/// `make install DESTDIR=<temporary> PREFIX=prefix`, and the installed binary run as a user would
/// run it with no toolchain on the PATH.
struct InstalledTree {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let destdir: String
    let root: String

    init(prefix: String) throws {
        destdir = try TemporaryFolder("install").path
        root = destdir + prefix
        // Man pages older than the sources would be made again in .build, whose lock this very
        // `swift test` holds: say so rather than wait for ever.
        let man = try Subprocess.run("/usr/bin/make", ["-q", ".build/plugins/GenerateManual/outputs/pulsejack/pulsejack.1"], in: Subprocess.repository)
        guard man.status == 0 else { throw Failure(description: "the man pages are older than the sources: run `make man` before the tests (make test does)") }
        let made = try Subprocess.run("/usr/bin/make", ["-s", "install", "DESTDIR=\(destdir)", "PREFIX=\(prefix)"], in: Subprocess.repository)
        guard made.status == 0 else { throw Failure(description: "make install failed: \(made.stdout.suffix(2000)) \(made.stderr.suffix(2000))") }
    }

    /// `pulsejack ARGUMENTS` under `env -i`: PATH /usr/bin:/bin, HOME an empty folder of the
    /// process's. Another program (a shell) gets the installed bin/ first on its PATH, as a user's has.
    func run(_ arguments: [String], in folder: URL?, executable: String? = nil) throws -> Subprocess {
        // Short, so an error naming the places searched fits its one line.
        let home = "/tmp/pjh\(getpid())"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let path = executable == nil ? "/usr/bin:/bin" : "\(root)/bin:/usr/bin:/bin"
        return try Subprocess.run("/usr/bin/env", ["-i", "PATH=\(path)", "HOME=\(home)", executable ?? root + "/bin/pulsejack"] + arguments,
                                  in: folder)
    }

    /// Every file (not folder) under the install's DESTDIR.
    func files() -> [String] {
        let walker = FileManager.default.enumerator(atPath: destdir)
        var files: [String] = []
        while let path = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: destdir + "/" + path, isDirectory: &isFolder), !isFolder.boolValue { files.append(path) }
        }
        return files.sorted()
    }
}
