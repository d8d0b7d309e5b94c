import ArgumentParser
import Inputs
import Foundation
import JackEngine

struct Voices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a preset's voices and the sound files they use, or (--kinds) every voice kind and its fields.")

    @Option(help: "The preset: a preset.yaml file or a folder holding one.")
    var preset: String = ShippedPresets.defaultPreset

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "List the voice kinds a preset can use, each with its own fields (type, range, default).")
    var kinds = false

    struct KindListing: Encodable {
        struct Field: Encodable {
            var key: String
            var value: String
            var `default`: String?
            var help: String
        }
        var kind: String
        var summary: String
        var fields: [Field]
    }

    func listKinds() throws {
        let listings = VoiceKinds.all.map { descriptor in
            KindListing(kind: descriptor.kind.rawValue, summary: descriptor.summary, fields: descriptor.fields.map {
                .init(key: $0.key, value: $0.valueDescription, default: $0.defaultValue, help: $0.help)
            })
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(listings), as: UTF8.self))
            return
        }
        print("Every voice has: \(Preset.VoiceDefinition.commonKeys.joined(separator: ", "))")
        for kind in listings {
            print("\n\(kind.kind): \(kind.summary)")
            for field in kind.fields {
                let fallback = field.default.map { " (default \($0))" } ?? ""
                print("  \(field.key.padding(toLength: 16, withPad: " ", startingAt: 0)) \(field.value)\(fallback): \(field.help)")
            }
        }
    }

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
        /// Its output group (`outputs: groups`).
        var group: String?
        var definedIn: String

        struct Rate: Encodable {
            var every: Int
            var subdivide: Int
        }

        enum CodingKeys: String, CodingKey {
            case name, kind, files, gain, pan, rate, enabled, group
            case onBeat = "on_beat"
            case midiNote = "midi_note"
            case definedIn = "defined_in"
        }
    }

    func run() throws {
        if kinds { return try listKinds() }
        let loaded: LoadedPreset
        do { loaded = try LoadedPreset.load(path: preset) } catch let error as InputError { throw fail(error) }
        let listings = loaded.voices.map { loadedVoice in
            let voice = loadedVoice.definition
            return Listing(name: voice.name, kind: voice.kind.rawValue, files: loadedVoice.sounds.map(\.path),
                           gain: voice.gain ?? 1, pan: voice.pan ?? 0,
                           rate: .init(every: voice.every ?? 1, subdivide: voice.subdivide ?? 1),
                           enabled: (voice.enabled ?? true) && !(voice.mute ?? false), onBeat: voice.onBeat ?? true,
                           midiNote: voice.midiNote, group: voice.group, definedIn: loadedVoice.file)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(listings), as: UTF8.self))
        } else {
            for voice in listings {
                let rate = "every \(voice.rate.every) × \(voice.rate.subdivide)"
                print("\(voice.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(voice.kind.padding(toLength: 11, withPad: " ", startingAt: 0)) gain \(voice.gain) pan \(voice.pan) \(rate)\(voice.enabled ? "" : " (off)")\(voice.group.map { " [\($0)]" } ?? "") \(voice.files.joined(separator: " "))")
            }
        }
    }
}
