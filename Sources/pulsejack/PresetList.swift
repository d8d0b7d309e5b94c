import ArgumentParser
import Foundation
import Presets
import UserFiles

/// `pulsejack presets`: the presets a name finds, and a copy of one to edit.
struct PresetList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presets",
        abstract: "List the presets --preset finds by name, with their descriptions and where each lives; --copy NAME copies one into your folder to edit.",
        discussion: """
            A name is looked for in $XDG_CONFIG_HOME/pulsejack/presets (~/.config/…), then $XDG_DATA_HOME/pulsejack/presets \
            (~/.local/share/…), then the installed presets (PREFIX/share/pulsejack/presets), then the clone's presets/; \
            the first wins. A copy is yours: edit its preset.yaml, and --preset NAME plays it from then on.
            """)

    @Option(help: ArgumentHelp("Copy this preset into your folder ($XDG_CONFIG_HOME/pulsejack/presets) to edit.", valueName: "NAME"),
            completion: Completions.presets) var copy: String?
    @Option(name: .customLong("as"), help: ArgumentHelp("With --copy: the copy's name (default: the same).", valueName: "NAME")) var copyName: String?
    @Flag(help: "Print JSON.") var json = false

    /// A preset's folder: the folder given, or the one a preset.yaml given sits in.
    static func folder(of preset: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: preset, isDirectory: &isFolder) else { throw InputError(file: preset, "no such preset") }
        if isFolder.boolValue { return preset }
        guard (preset as NSString).lastPathComponent == "preset.yaml" else {
            throw InputError(file: preset, "--copy takes a preset's name or folder (a folder holding preset.yaml)")
        }
        return (preset as NSString).deletingLastPathComponent
    }

    struct Listed: Encodable {
        var name: String
        var description: String?
        var folder: String
        var place: PresetSearchPath.Place
        var hides: [PresetSearchPath.Place]
    }

    func validate() throws {
        if copyName != nil && copy == nil { throw ValidationError("--as goes with --copy NAME") }
    }

    func run() throws {
        let path = PresetSearchPath.standard()
        if let copy {
            do {
                let source = try Self.folder(of: try path.resolve(copy))
                let name = copyName ?? (PresetSearchPath.isName(copy) ? copy : URL(fileURLWithPath: source).lastPathComponent)
                if let problem = PresetSearchPath.newNameProblem(name) { throw fail(problem) }
                let copied = try PresetCopy.copy(source, named: name, into: path.userFolder)
                print("Copied \(source) to \(copied): edit \(copied)/preset.yaml, and play it with --preset \(name).")
            } catch let error as InputError { throw fail(error) }
            return
        }
        let entries = path.presets()
        if json {
            return try printJSON(entries.map { Listed(name: $0.name, description: $0.description, folder: $0.folder, place: $0.place, hides: $0.hides) })
        }
        guard !entries.isEmpty else {
            throw fail("no presets found (searched \(path.folders.map(\.path).joined(separator: ", ")))")
        }
        let width = entries.map(\.name.count).max() ?? 0
        for entry in entries {
            let hides = entry.hides.isEmpty ? "" : " (over the \(entry.hides.map(\.label).joined(separator: " and ")) one)"
            print(entry.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + (entry.description ?? "(no description)"))
            print(String(repeating: " ", count: width) + "  " + entry.place.label + ": " + entry.folder + hides)
        }
    }
}
