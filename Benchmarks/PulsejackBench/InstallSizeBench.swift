import Foundation

/// Row 17, installed as a package: the size of `make deb`'s binary (stripped, the Swift runtime
/// and Foundation linked in) and of the package, beside jalv's and Hydrogen's Debian packages as
/// apt describes them (Installed-Size, and the .deb's Size). Needs `make deb` first.
enum InstallSizeBench {
    static func run(runs: Int) throws -> [BenchRow] {
        let repository = BenchFixtures.repository
        let folder = repository.appendingPathComponent(".build/deb")
        guard let package = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.first(where: { $0.hasSuffix(".deb") }) else {
            throw BenchFailure("no package in .build/deb: run `make deb` first")
        }
        let path = folder.appendingPathComponent(package).path
        let binary = folder.appendingPathComponent("root/usr/bin/pulsejack").path
        let binaryBytes = try size(of: binary)
        let packageBytes = try size(of: path)
        let installedKiB = Int(Report.shell("dpkg-deb --field \(path) Installed-Size")) ?? 0
        let liblsl = (try? size(of: folder.appendingPathComponent("root/usr/lib/pulsejack/liblsl.so.2").path)) ?? 0
        let presets = Int(Report.shell("du -sk \(folder.path)/root/usr/share/pulsejack | cut -f1")) ?? 0
        // ICU's data, which Foundation carries: the largest single symbol (read on the unstripped build).
        let unstripped = repository.appendingPathComponent(".build-install/release/pulsejack").path
        let icu = Int(Report.shell("nm -S \(unstripped) | awk '/icudt[0-9]+_dat$/ {print $2; exit}'"), radix: 16) ?? 0
        func apt(_ name: String) -> (installed: Int, size: Int, version: String) {
            let text = Report.shell("apt-cache show --no-all-versions \(name)")
            func field(_ key: String) -> String {
                text.split(separator: "\n").first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) } ?? "?"
            }
            return (Int(field("Installed-Size")) ?? 0, Int(field("Size")) ?? 0, field("Version"))
        }
        let jalv = apt("jalv"), hydrogen = apt("hydrogen"), drumkits = apt("hydrogen-data")
        func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
        func mbKiB(_ kib: Int) -> String { mb(kib * 1024) }
        return [
            BenchRow(row: "17. Installed", measure: "the installed binary (release, --static-swift-stdlib, stripped: the Swift runtime and Foundation, with its ICU data, inside; only Debian's libraries beside it)",
                     pulsejack: "\(mb(binaryBytes)), ICU's data \(mb(icu)) of it; liblsl beside it \(mb(liblsl)); presets and sounds \(mbKiB(presets))",
                     reference: "jalv \(jalv.version): the whole package installs \(mbKiB(jalv.installed)) (a C program on Debian's shared libraries)",
                     command: "make deb && .build/release/pulsejack-bench --only install"),
            BenchRow(row: "17. Installed", measure: "the Debian package (make deb, xz): download / Installed-Size",
                     pulsejack: "\(mb(packageBytes)) / \(mbKiB(installedKiB))",
                     reference: "jalv \(mb(jalv.size)) / \(mbKiB(jalv.installed)); Hydrogen \(hydrogen.version) \(mb(hydrogen.size)) / \(mbKiB(hydrogen.installed)), with its required hydrogen-data (drum kits) \(mb(hydrogen.size + drumkits.size)) / \(mbKiB(hydrogen.installed + drumkits.installed))",
                     command: "make deb && .build/release/pulsejack-bench --only install"),
        ]
    }

    private static func size(of path: String) throws -> Int {
        guard let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int else { throw BenchFailure("no size for \(path)") }
        return bytes
    }
}
