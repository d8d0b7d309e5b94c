import ArgumentParser
import Control
import Foundation
import JackEngine

struct Voices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List a preset's voices and the sound files they use.")

    @Option(help: "The preset: a preset.yaml file or a folder holding one.")
    var preset: String = ShippedPresets.defaultPreset

    @Flag(help: "Print JSON.")
    var json = false

    struct Listing: Encodable {
        var name: String
        var kind: String
        var files: [String]
        var gain: Float
        var pan: Float
        var rate: Rate
        var enabled: Bool
        var onBeat: Bool
        var midiNote: Int?
        var definedIn: String

        struct Rate: Encodable {
            var every: Int
            var subdivide: Int
        }

        enum CodingKeys: String, CodingKey {
            case name, kind, files, gain, pan, rate, enabled
            case onBeat = "on_beat"
            case midiNote = "midi_note"
            case definedIn = "defined_in"
        }
    }

    func run() throws {
        let loaded: LoadedPreset
        do { loaded = try LoadedPreset.load(path: preset) } catch let error as InputError { throw fail(error) }
        let listings = loaded.voices.map { loadedVoice in
            let voice = loadedVoice.definition
            return Listing(name: voice.name, kind: voice.kind.rawValue, files: loadedVoice.sounds.map(\.path),
                           gain: voice.gain ?? 1, pan: voice.pan ?? 0,
                           rate: .init(every: voice.every ?? 1, subdivide: voice.subdivide ?? 1),
                           enabled: (voice.enabled ?? true) && !(voice.mute ?? false), onBeat: voice.onBeat ?? true,
                           midiNote: voice.midiNote, definedIn: loadedVoice.file)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(listings), as: UTF8.self))
        } else {
            for voice in listings {
                let rate = "every \(voice.rate.every) × \(voice.rate.subdivide)"
                print("\(voice.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(voice.kind.padding(toLength: 11, withPad: " ", startingAt: 0)) gain \(voice.gain) pan \(voice.pan) \(rate)\(voice.enabled ? "" : " (off)") \(voice.files.joined(separator: " "))")
            }
        }
    }
}
