import Foundation
import TestSupport
import XCTest

/// `make deb`, lintian without an error, apt installing it with its Depends, pulsejack working
/// from /tmp as a user with no toolchain would run it, and `dpkg -r` taking every file back.
final class DebianPackageTests: XCTestCase {
    func testThePackageInstallsWorksAndRemovesEveryFile() throws {
        try Packaging.require()
        let package = try makePackage()

        if try Subprocess.run("/usr/bin/dpkg", ["-s", "pulsejack"]).status == 0 {
            _ = try Subprocess.run("/usr/bin/dpkg", ["-r", "pulsejack"], timeout: 120)
        }
        let installed = try Subprocess.run("/usr/bin/apt-get", ["install", "-y", "-q", "--no-install-recommends", package],
                                           environment: ["DEBIAN_FRONTEND": "noninteractive"], timeout: 600)
        XCTAssertEqual(installed.status, 0, "apt-get install: \(installed.stdout.suffix(2000)) \(installed.stderr)")
        var removed = false
        defer { if !removed { _ = try? Subprocess.run("/usr/bin/dpkg", ["-r", "pulsejack"], timeout: 120) } }
        let files = try Subprocess.run("/usr/bin/dpkg", ["-L", "pulsejack"]).stdout.split(separator: "\n").map(String.init)
            .filter { path in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
            }
        for expected in ["/usr/bin/pulsejack", "/usr/share/pulsejack/presets/default/preset.yaml", "/usr/share/man/man1/pulsejack.1.gz",
                         "/usr/share/man/man1/pulsejack.run.1.gz", "/usr/share/bash-completion/completions/pulsejack",
                         "/usr/lib/systemd/user/pulsejack@.service", "/usr/share/doc/pulsejack/copyright"] {
            XCTAssertTrue(files.contains(expected), "\(expected) installed")
        }

        let folder = URL(fileURLWithPath: "/tmp/pulsejack-deb-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let demo = try Subprocess.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "HOME=\(folder.path)", "pulsejack", "demo"], in: folder)
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let wav = try WavFile(path: folder.appendingPathComponent("pulsejack-demo.wav").path)
        XCTAssertGreaterThan(wav.frameCount, 48_000 * 10, "the demo session's length")
        let listed = try Subprocess.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "HOME=\(folder.path)", "pulsejack", "presets"], in: folder)
        XCTAssertTrue(listed.stdout.contains("installed: /usr/share/pulsejack/presets/tambour"), listed.stdout)

        // The user unit as systemd reads it, for an instance (systemd itself does not run here).
        let unit = folder.appendingPathComponent("pulsejack@tambour.service").path
        try FileManager.default.copyItem(atPath: "/usr/lib/systemd/user/pulsejack@.service", toPath: unit)
        let verified = try Subprocess.run("/usr/bin/systemd-analyze", ["verify", unit], timeout: 60)
        XCTAssertEqual(verified.status, 0, verified.stderr)
        XCTAssertEqual(verified.stderr, "", "systemd-analyze has no complaint")

        let gone = try Subprocess.run("/usr/bin/dpkg", ["-r", "pulsejack"], timeout: 120)
        removed = true
        XCTAssertEqual(gone.status, 0, gone.stderr)
        let left = files.filter { FileManager.default.fileExists(atPath: $0) }
        XCTAssertEqual(left, [], "dpkg -r left files behind")
        XCTAssertGreaterThan(files.count, 50)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/usr/share/pulsejack"), "its folders too")
    }

    /// `make deb`: the package named for its version and architecture, lintian without an
    /// error, and what it depends on (no Swift toolchain). Its path.
    private func makePackage() throws -> String {
        let repository = Subprocess.repository
        let made = try Subprocess.run("/usr/bin/make", ["-s", "deb"], in: repository)
        XCTAssertEqual(made.status, 0, "make deb (lintian --fail-on error in it): \(made.stdout.suffix(3000)) \(made.stderr.suffix(3000))")
        let architecture = try Subprocess.run("/usr/bin/dpkg", ["--print-architecture"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let version = try Subprocess.run(Subprocess.pulsejack, ["--version"]).stdout.split(separator: " ").first.map(String.init) ?? "?"
        let package = repository.appendingPathComponent(".build/deb/pulsejack_\(version)_\(architecture).deb").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: package), "named pulsejack_VERSION_ARCH.deb: \(package)")
        // `make deb` ran lintian on it (16 s here): its tags are in make's output.
        XCTAssertFalse(made.stdout.split(separator: "\n").contains { $0.hasPrefix("E:") }, made.stdout)

        let fields = try Subprocess.run("/usr/bin/dpkg-deb", ["--field", package, "Depends", "Recommends"]).stdout
        for needed in ["libjack-jackd2-0", "libsndfile1", "liblilv-0-0", "librubberband2", "libzita-convolver4", "liblo7", "jackd2 | pipewire-jack",
                       "swh-lv2"] {
            XCTAssertTrue(fields.contains(needed), "\(needed) in \(fields)")
        }
        XCTAssertFalse(fields.lowercased().contains("swift"), fields)
        return package
    }
}
