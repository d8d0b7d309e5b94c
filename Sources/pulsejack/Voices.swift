import UserFiles
import ArgumentParser
import Presets

struct Voices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a preset's voices and the sound files they use, (--kinds) every voice kind and its fields, or (--modulations) every body signal and parameter a modulation can join.")

    @Option(help: presetHelp, completion: Completions.presets) var preset: String = ShippedPresets.defaultPreset
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "List the voice kinds a preset can use, each with its own fields (type, range, default).") var kinds = false
    @Flag(help: "List every source and destination the preset's `modulations:` can use, and its own modulations.") var modulations = false

    func run() throws {
        if kinds {
            let listings = VoiceListing.kinds()
            return json ? try printJSON(listings) : VoiceListing.text(listings).forEach { print($0) }
        }
        let loaded: LoadedPreset
        do { loaded = try LoadedPreset.load(path: preset) } catch let error as InputError { throw fail(error) }
        if modulations {
            let listing: ModulationListing
            do { listing = try ModulationListing.of(loaded) } catch let error as InputError { throw fail(error) }
            return json ? try printJSON(listing) : listing.text.forEach { print($0) }
        }
        let listings = VoiceListing.voices(of: loaded)
        if json { try printJSON(listings) } else { VoiceListing.text(listings).forEach { print($0) } }
    }
}
