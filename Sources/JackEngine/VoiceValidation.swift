import Control
import Foundation
import Voices

/// Checks one voice definition: ranges, names and that its sound files exist. Control thread.
enum VoiceValidation {
    static func check(_ voice: LoadedVoice) throws {
        let definition = voice.definition
        func fail(_ field: String?, _ message: String) -> InputError { voice.error(field, message) }
        func inRange<T: Comparable>(_ value: T?, _ range: ClosedRange<T>, _ field: String) throws {
            if let value, !range.contains(value) {
                throw fail(field, "\(value) is outside \(range.lowerBound)…\(range.upperBound)")
            }
        }
        if definition.name.isEmpty || definition.name.contains(where: { $0.isWhitespace || $0 == "/" }) {
            throw fail("name", "'\(definition.name)' is not a voice name (no spaces or '/')")
        }
        if let gain = definition.gain, !gain.isFinite { throw fail("gain", "\(gain) is not a number") }
        try inRange(definition.gain, 0...4, "gain")
        if let pan = definition.pan, !pan.isFinite { throw fail("pan", "\(pan) is not a number") }
        if let pan = definition.pan, !(-1...1).contains(pan) { throw fail("pan", "\(pan) is outside −1…1") }
        try inRange(definition.every, 1...16, "every")
        if let subdivide = definition.subdivide, ![1, 2, 3, 4].contains(subdivide) {
            throw fail("subdivide", "\(subdivide) is not 1, 2, 3 or 4")
        }
        try inRange(definition.velocity, 0...1, "velocity")
        try inRange(definition.choke, 1...16, "choke")
        try inRange(definition.midiNote, 0...127, "midi_note")
        try inRange(definition.midiOutNote, 0...127, "midi_out_note")
        try inRange(definition.midiOutChannel, 1...16, "midi_out_channel")
        try inRange(definition.midiOutLength, 0.001...60, "midi_out_length")
        try inRange(definition.polyphony, 1...256, "polyphony")

        let needs: [String]
        switch definition.kind {
        case .click: needs = []
        case .sample, .convolution: needs = ["file"]
        case .track: needs = definition.library == nil ? ["file"] : []
        case .tap: needs = ["toe", "heel", "scuff"]
        case .arpeggio: needs = []
        }
        let given = Set(definition.soundFields.map(\.field))
        for field in needs where !given.contains(field) {
            throw fail(nil, "a \(definition.kind.rawValue) voice needs '\(field)'")
        }
        for field in given where !needs.contains(field) {
            throw fail(field, "a \(definition.kind.rawValue) voice plays no '\(field)'")
        }
        for sound in voice.sounds where !FileManager.default.fileExists(atPath: sound.path) {
            throw fail(sound.field, "sound file not found: \(sound.path)")
        }

        if let library = voice.libraryPath {
            guard definition.kind == .track else { throw fail("library", "only a track voice has a library") }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: library, isDirectory: &isFolder), isFolder.boolValue else {
                throw fail("library", "no such folder: \(library)")
            }
        }
        if let range = definition.stretchRange {
            guard definition.kind == .track else { throw fail("stretch_range", "only a track voice has a stretch range") }
            guard range.count == 2, range.allSatisfy({ $0.isFinite && (0.1...10).contains($0) }), range[0] <= 1, range[1] >= 1,
                  range[0] < range[1] else {
                throw fail("stretch_range", "\(range) is not [least, most] with 0.1 ≤ least ≤ 1 ≤ most ≤ 10")
            }
        }
        if let bpm = definition.trackBPM {
            guard definition.kind == .track else { throw fail("track_bpm", "only a track voice has 'track_bpm'") }
            guard bpm.isFinite, (20...300).contains(bpm) else { throw fail("track_bpm", "\(bpm) is outside 20…300") }
        }
        if definition.kind == .convolution {
            if let shape = definition.shape, !["single", "lub-dub"].contains(shape) {
                throw fail("shape", "'\(shape)' is not single or lub-dub")
            }
            try inRange(definition.lubDubDelay, 0.02...1.5, "lub_dub_delay")
            try inRange(definition.lubDubGain, 0...1, "lub_dub_gain")
        } else {
            for (field, present) in [("input", definition.input != nil), ("shape", definition.shape != nil),
                                     ("lub_dub_delay", definition.lubDubDelay != nil), ("lub_dub_gain", definition.lubDubGain != nil)]
            where present {
                throw fail(field, "only a convolution voice has '\(field)'")
            }
        }
        if definition.kind == .tap {
            for (index, step) in (definition.choreography ?? []).enumerated() where TapStep(rawValue: step) == nil {
                throw fail("choreography[\(index)]", "'\(step)' is not a step (known: \(TapStep.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if definition.choreography?.isEmpty == true { throw fail("choreography", "an empty choreography") }
        } else if definition.choreography != nil {
            throw fail("choreography", "only a tap voice has a choreography")
        }
        if definition.kind == .arpeggio {
            try inRange(definition.octaves, 1...4, "octaves")
            try inRange(definition.gate, 0.05...1, "gate")
            try inRange(definition.stepsPerChord, 1...64, "steps_per_chord")
            try inRange(definition.baseNote, 24...96, "base_note")
            if let chords = definition.chords, ArpeggioVoice.Settings.parse(chords, baseNote: 60) == nil {
                throw fail("chords", "\(chords) are not chord names like C, G, Am, F#m, Bb7")
            }
            if let order = definition.order, ArpeggioVoice.Order(rawValue: order) == nil {
                throw fail("order", "'\(order)' is not up, down, up-down or random")
            }
            if let waveform = definition.waveform, ArpeggioVoice.Waveform(rawValue: waveform) == nil {
                throw fail("waveform", "'\(waveform)' is not sine, saw or square")
            }
        } else {
            for (field, present) in [("chords", definition.chords != nil), ("order", definition.order != nil),
                                     ("octaves", definition.octaves != nil), ("gate", definition.gate != nil),
                                     ("steps_per_chord", definition.stepsPerChord != nil),
                                     ("waveform", definition.waveform != nil), ("base_note", definition.baseNote != nil)]
            where present {
                throw fail(field, "only an arpeggio voice has '\(field)'")
            }
        }
    }
}
