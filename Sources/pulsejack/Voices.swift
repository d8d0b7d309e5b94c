import UserFiles
import ArgumentParser
import Inputs
import Presets

struct Voices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a preset's voices and the sound files they use, or (--kinds) every voice kind and its fields.")

    @Option(help: "The preset: a preset.yaml file or a folder holding one.")
    var preset: String = ShippedPresets.defaultPreset

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "List the voice kinds a preset can use, each with its own fields (type, range, default).")
    var kinds = false

    func listKinds() throws {
        let listings = VoiceListing.kinds()
        if json { return try printJSON(listings) }
        print("Every voice has: \(Preset.VoiceDefinition.commonKeys.joined(separator: ", "))")
        for kind in listings {
            print("\n\(kind.kind): \(kind.summary)")
            for field in kind.fields {
                let fallback = field.default.map { " (default \($0))" } ?? ""
                print("  \(field.key.padding(toLength: 16, withPad: " ", startingAt: 0)) \(field.value)\(fallback): \(field.help)")
            }
        }
    }

    func run() throws {
        if kinds { return try listKinds() }
        let loaded: LoadedPreset
        do { loaded = try LoadedPreset.load(path: preset) } catch let error as InputError { throw fail(error) }
        let listings = VoiceListing.voices(of: loaded)
        if json {
            try printJSON(listings)
        } else {
            for voice in listings {
                let rate = "every \(voice.rate.every) × \(voice.rate.subdivide)"
                print("\(voice.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(voice.kind.padding(toLength: 11, withPad: " ", startingAt: 0)) gain \(voice.gain) pan \(voice.pan) \(rate)\(voice.enabled ? "" : " (off)")\(voice.group.map { " [\($0)]" } ?? "") \(voice.files.joined(separator: " "))")
            }
        }
    }
}
