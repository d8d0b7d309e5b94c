import Plugins
import Inputs
import Foundation
import Voices
import SoundFiles

/// Everything pulsejack knows about one voice kind, in one place: its `kind:` word, its own
/// fields (type, range, default), which sounds it needs, its extra checks and how it is built.
/// Validation, the YAML key check, the engine graph, `pulsejack voices --kinds` and the
/// real-time safety test all read the descriptors in `VoiceKinds.all`; a new kind is its voice
/// file in Sources/Voices plus one descriptor file in Preset/VoiceKinds, listed there.
public protocol VoiceKindDescriptor: Sendable {
    var kind: Preset.VoiceKind { get }
    /// One line for the kinds listing.
    var summary: String { get }
    /// The fields only this kind has (every voice also has `VoiceDefinition.commonKeys`).
    var fields: [VoiceField] { get }
    /// The `.sound` fields this definition must give (default: every `.sound` field).
    func requiredSounds(_ voice: Preset.VoiceDefinition) -> [String]
    /// Checks beyond each field's type and range (default: none).
    func check(_ voice: LoadedVoice) throws
    /// Whether the heartbeat fires it when `on_beat` is not given (default: yes).
    func followsHeartbeat(_ voice: Preset.VoiceDefinition) -> Bool
    /// Offline. The voice, its sounds loaded at the engine's rate.
    func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice
    /// Field values that make this kind work hardest (every `.sound` field is filled with a
    /// test clip): the real-time safety test builds and fires one voice per workout.
    var workouts: [[String: VoiceOption]] { get }
    /// What a voice this descriptor built holds, by field key (the fields it can read back):
    /// the tests check a voice built from no fields against the fields' defaults.
    func parameters(of voice: any Voice) -> [String: VoiceOption]
}

extension VoiceKindDescriptor {
    public func requiredSounds(_ voice: Preset.VoiceDefinition) -> [String] {
        fields.filter { if case .sound = $0.value { true } else { false } }.map(\.key)
    }
    public func check(_ voice: LoadedVoice) throws {}
    public func followsHeartbeat(_ voice: Preset.VoiceDefinition) -> Bool { true }
    public var workouts: [[String: VoiceOption]] { [[:]] }

    public func field(_ key: String) -> VoiceField? { fields.first { $0.key == key } }

    /// Field `key` of `voice`: what its preset gives, else the field's default (nil: neither).
    public func value(_ key: String, of voice: LoadedVoice) -> VoiceOption? {
        voice.definition.option(key) ?? field(key)?.defaultOption
    }

    /// The typed value of a field that has a default: what the preset gives, else the default.
    /// Validation has checked the preset's value by the field's type, so neither is missing.
    func number(_ key: String, of voice: LoadedVoice) -> Double { required(key, of: voice).number! }
    func whole(_ key: String, of voice: LoadedVoice) -> Int { required(key, of: voice).whole! }
    func text(_ key: String, of voice: LoadedVoice) -> String { required(key, of: voice).text! }
    func flag(_ key: String, of voice: LoadedVoice) -> Bool { required(key, of: voice).flag! }
    func texts(_ key: String, of voice: LoadedVoice) -> [String] { required(key, of: voice).texts! }
    func numbers(_ key: String, of voice: LoadedVoice) -> [Double] { required(key, of: voice).numbers! }

    private func required(_ key: String, of voice: LoadedVoice) -> VoiceOption {
        guard let value = value(key, of: voice) else { preconditionFailure("\(kind).\(key) has no default") }
        return value
    }
}

/// What a descriptor builds a voice with: the engine's rate and period, and shared sound loading.
public struct VoiceBuildContext {
    public let sampleRate: Int
    public let maxFrames: Int
    /// Offline. Voices that use worker threads wait for them (deterministic output).
    public let offline: Bool
    /// Track libraries already scanned, by folder.
    public let libraries: [String: TrackLibrary]
    let load: (LoadedVoice, String) throws -> SampleBuffer
    /// Hosts LV2 plugins at the engine's rate and period.
    let plugins: PluginBuilder
    /// The preset's instrument voices (`kind: lv2`), by name, built before the voices that play them.
    var instruments: [String: any NoteSink] = [:]

    /// The instrument voice named by `field` (`instrument:`), if the voice names one.
    func instrument(_ voice: LoadedVoice, _ field: String = "instrument") throws -> (any NoteSink)? {
        guard let name = voice.definition.option(field)?.text else { return nil }
        guard let instrument = instruments[name] else {
            let known = instruments.keys.sorted()
            throw voice.error(field, "no lv2 voice named '\(name)' in this preset"
                              + (known.isEmpty ? "" : " (lv2 voices: \(known.joined(separator: ", ")))"))
        }
        return instrument
    }

    /// The decoded sound named by `field` (voices that play the same file share one buffer).
    public func sample(_ voice: LoadedVoice, _ field: String) throws -> SampleBuffer { try load(voice, field) }
}

/// The registry: every voice kind pulsejack plays, in the order the listing shows them.
public enum VoiceKinds {
    public static let all: [any VoiceKindDescriptor] = [
        ClickKind(), SampleKind(), TapKind(), ArpeggioKind(), ConvolutionKind(), TrackKind(), LV2Kind(),
    ]

    public static func descriptor(_ kind: Preset.VoiceKind) -> (any VoiceKindDescriptor)? {
        all.first { $0.kind == kind }
    }

    /// A field some kind has, for decoding it by type before the kind's own check refuses it.
    static func anyField(_ key: String) -> VoiceField? {
        for descriptor in all { if let field = descriptor.field(key) { return field } }
        return nil
    }

    /// Every key a voice may have: the common ones and each kind's own.
    static var allKeys: Set<String> {
        Set(Preset.VoiceDefinition.commonKeys).union(all.flatMap { $0.fields.map(\.key) })
    }
}
