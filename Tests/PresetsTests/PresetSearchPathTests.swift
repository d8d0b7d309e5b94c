import Foundation
import TestSupport
import UserFiles
import XCTest
@testable import Presets

/// A preset named without a path: found on the search path (the user's own first), listed, and
/// copied to edit so the copy plays the same sounds.
final class PresetSearchPathTests: XCTestCase {
    /// A preset folder `name` in `folder` whose description says where it is.
    private func makePreset(_ name: String, in folder: String, saying: String) throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
        try "name: \(name)\ndescription: \(saying)\nvoices:\n  - {name: click, kind: click}\n"
            .write(toFile: "\(folder)/\(name)/preset.yaml", atomically: true, encoding: .utf8)
    }

    private func places(_ root: TemporaryFolder) -> PresetSearchPath {
        PresetSearchPath(folders: [.init(place: .config, path: root.file("config")), .init(place: .data, path: root.file("data")),
                                   .init(place: .installed, path: root.file("installed")), .init(place: .clone, path: root.file("clone"))])
    }

    func testANameIsFoundInTheFirstFolderThatHoldsIt() throws {
        let root = try TemporaryFolder("search")
        defer { root.remove() }
        let path = places(root)
        for (folder, names) in [("config", ["mine"]), ("data", ["mine", "theirs"]), ("installed", ["theirs", "shipped"]), ("clone", ["shipped", "new"])] {
            for name in names { try makePreset(name, in: root.file(folder), saying: "\(name) in \(folder)") }
        }
        for (name, folder) in [("mine", "config"), ("theirs", "data"), ("shipped", "installed"), ("new", "clone")] {
            XCTAssertEqual(try path.resolve(name), root.file(folder) + "/" + name)
            XCTAssertEqual(try LoadedPreset.load(path: name, searching: path).preset.description, "\(name) in \(folder)")
        }
        let listed = path.presets()
        XCTAssertEqual(listed.map(\.name), ["mine", "theirs", "shipped", "new"])
        XCTAssertEqual(listed.map(\.place), [.config, .data, .installed, .clone])
        XCTAssertEqual(listed.map(\.hides), [[.data], [.installed], [.clone], []])
        XCTAssertEqual(listed.map(\.description), ["mine in config", "theirs in data", "shipped in installed", "new in clone"])
    }

    func testAPathStillWorksAndAnUnknownNameNamesEveryPlaceSearched() throws {
        let root = try TemporaryFolder("search-path")
        defer { root.remove() }
        let path = places(root)
        try makePreset("shipped", in: root.file("installed"), saying: "installed")
        try makePreset("elsewhere", in: root.path, saying: "by path")
        XCTAssertEqual(try LoadedPreset.load(path: root.file("elsewhere"), searching: path).preset.description, "by path")
        XCTAssertEqual(try LoadedPreset.load(path: root.file("elsewhere/preset.yaml"), searching: path).preset.description, "by path")
        XCTAssertThrowsError(try LoadedPreset.load(path: "nosuch", searching: path)) { error in
            let said = "\(error)"
            XCTAssertTrue(said.hasPrefix("nosuch: no preset of that name"), said)
            for folder in ["config", "data", "installed", "clone"] { XCTAssertTrue(said.contains(root.file(folder)), "\(folder): \(said)") }
            XCTAssertTrue(said.hasSuffix("`pulsejack presets` lists them, or give a preset.yaml file or a folder holding one"), said)
        }
        // A path that is not there stays the error it was.
        XCTAssertThrowsError(try LoadedPreset.load(path: root.file("gone"), searching: path)) { error in
            XCTAssertTrue("\(error)".hasPrefix(root.file("gone") + ": no such preset"), "\(error)")
        }
    }

    func testTheStandardPathFollowsXDGAndTheClone() throws {
        let path = PresetSearchPath.standard(environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "relative/ignored"])
        XCTAssertEqual(path.folders.prefix(2).map(\.path), ["/cfg/pulsejack/presets", "/home/ada/.local/share/pulsejack/presets"])
        XCTAssertEqual(path.userFolder, "/cfg/pulsejack/presets")
        // The test bundle sits in the clone's .build: the clone's presets are last, and hold every shipped one.
        XCTAssertEqual(path.folders.last?.place, .clone)
        XCTAssertEqual(path.folders.last?.path, Shipped.presets.path)
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Shipped.presets.path)
            .filter { FileManager.default.fileExists(atPath: Shipped.presets.appendingPathComponent("\($0)/preset.yaml").path) }
        XCTAssertEqual(Set(PresetSearchPath(folders: [path.folders.last!]).presets().map(\.name)), Set(shipped))
        XCTAssertGreaterThanOrEqual(shipped.count, 10)
    }

    /// Every shipped preset, copied: the copy lives in the user's folder and every sound, included
    /// voice file and track library it names is the very file the original names.
    func testACopyPlaysTheSameFilesFromItsNewPlace() throws {
        let root = try TemporaryFolder("copy")
        defer { root.remove() }
        let shipped = PresetSearchPath(folders: [.init(place: .clone, path: Shipped.presets.path)])
        for entry in shipped.presets() {
            let copied = try PresetCopy.copy(entry.folder, named: entry.name, into: root.file("mine"))
            XCTAssertEqual(copied, root.file("mine") + "/" + entry.name)
            let original = try LoadedPreset.load(path: entry.folder)
            let copy = try LoadedPreset.load(path: copied)
            XCTAssertEqual(copy.voices.map(\.definition.name), original.voices.map(\.definition.name), entry.name)
            // What the folder holds travels with it; what lies outside is the very same file.
            func moved(_ path: String?) -> String? {
                guard let path else { return nil }
                return path.hasPrefix(entry.folder + "/") ? copied + path.dropFirst(entry.folder.count) : path
            }
            XCTAssertEqual(copy.voices.flatMap { $0.sounds.map(\.path) }, original.voices.flatMap { $0.sounds.map { moved($0.path)! } }, entry.name)
            XCTAssertEqual(copy.voices.map(\.libraryPath), original.voices.map { moved($0.libraryPath) }, entry.name)
            for path in copy.voices.flatMap({ $0.sounds.map(\.path) }) { XCTAssertTrue(FileManager.default.fileExists(atPath: path), path) }
            XCTAssertFalse(try String(contentsOfFile: copied + "/preset.yaml", encoding: .utf8).contains("../"), entry.name)
        }
        XCTAssertThrowsError(try PresetCopy.copy(Shipped.presets.appendingPathComponent("click").path, named: "click", into: root.file("mine"))) {
            XCTAssertTrue("\($0)".contains("a preset of that name is already there"), "\($0)")
        }
    }

    /// A copy under another name says that name (`name:` rewritten, its comment kept); the
    /// original's own name is left alone; a new name that a shell or a unit would mangle is refused.
    func testACopyUnderAnotherNameIsThatName() throws {
        let root = try TemporaryFolder("copy-as")
        defer { root.remove() }
        let copied = try PresetCopy.copy(Shipped.presets.appendingPathComponent("breathe").path, named: "mine", into: root.path)
        XCTAssertEqual(try LoadedPreset.load(path: copied).preset.name, "mine")
        XCTAssertEqual(PresetCopy.renamed("name: breathe   # the calm one\nvoices: []\n  name: inner", to: "mine"),
                       "name: mine  # the calm one\nvoices: []\n  name: inner")
        for bad in ["", "my preset", "tab\tname", ".hidden", "a/b", "x.yaml", "bell\u{7}"] {
            XCTAssertNotNil(PresetSearchPath.newNameProblem(bad), "'\(bad)' refused")
        }
        XCTAssertEqual(PresetSearchPath.newNameProblem(""), "a preset's name cannot be empty")
        for good in ["mine", "net-duo", "take_2", "v1.2+"] { XCTAssertNil(PresetSearchPath.newNameProblem(good), good) }
    }

    func testOnlyValuesLeavingTheFolderAreRewritten() {
        let text = """
            # from ../sounds, as the comment says ../x
            voices:
              - {name: a, kind: sample, file: ../sounds/a.wav, gain: 0.5}
              - name: b
                file: "../sounds/b c.wav"   # ../not/this
                here: ./own.wav
            include: [../voices/tap.yaml, ../voices/arp.yaml]
            """
        XCTAssertEqual(PresetCopy.anchored(text, from: "/p/preset"), """
            # from ../sounds, as the comment says ../x
            voices:
              - {name: a, kind: sample, file: /p/sounds/a.wav, gain: 0.5}
              - name: b
                file: "/p/sounds/b c.wav"   # ../not/this
                here: ./own.wav
            include: [/p/voices/tap.yaml, /p/voices/arp.yaml]
            """)
    }
}
