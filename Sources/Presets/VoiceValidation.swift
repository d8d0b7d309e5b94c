import UserFiles
import Inputs
import Foundation
import Voices
import Realtime

/// Checks one voice definition: the fields every voice has, then its kind's fields as its
/// descriptor describes them, its sounds, and the descriptor's own checks. Control thread.
package enum VoiceValidation {
    static func check(_ voice: LoadedVoice) throws {
        let definition = voice.definition
        func fail(_ field: String?, _ message: String) -> InputError { voice.error(field, message) }
        if definition.name.isEmpty || definition.name.contains(where: { $0.isWhitespace || $0 == "/" }) {
            throw fail("name", "'\(definition.name)' is not a voice name (no spaces or '/')")
        }
        for field in VoiceFields.all {
            if let problem = field.problem(definition) { throw fail(field.key, problem) }
        }

        let descriptor = definition.kind.descriptor
        let article = "aeiou".contains(definition.kind.rawValue.first!) ? "an" : "a"
        for key in definition.options.keys.sorted() where descriptor.field(key) == nil {
            let owners = VoiceKinds.all.filter { $0.field(key) != nil }.map(\.kind.rawValue)
            throw fail(key, "\(article) \(definition.kind) voice has no '\(key)' (only \(VoiceField.orList(owners)) voices have it)")
        }
        for field in descriptor.fields {
            guard let option = definition.options[field.key] else { continue }
            if let problem = field.problem(with: option) { throw fail(field.key, problem) }
        }
        let needs = descriptor.requiredSounds(definition)
        let given = definition.soundFields.map(\.field)
        for field in needs where !given.contains(field) {
            throw fail(nil, "\(article) \(definition.kind) voice needs '\(field)'")
        }
        for field in given where !needs.contains(field) {
            throw fail(field, "\(article) \(definition.kind) voice plays no '\(field)' here")
        }
        for sound in voice.sounds where !FileManager.default.fileExists(atPath: sound.path) {
            throw fail(sound.field, "sound file not found: \(sound.path)")
        }
        try descriptor.check(voice)
    }
}
