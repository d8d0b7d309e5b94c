import Voices
import Plugins

extension Preset.VoiceKind {
    public static let lv2 = Preset.VoiceKind("lv2")
}

/// A hosted LV2 instrument: each firing is a MIDI note at its exact frame in the plugin's period.
package struct LV2Kind: VoiceKindDescriptor {
    package let kind = Preset.VoiceKind.lv2
    package let summary = "an LV2 instrument plugin (a piano, a synth), one MIDI note per firing at its exact frame"
    package let fields = [
        VoiceField("plugin", .text, "the instrument's URI, or clap:ID for a CLAP instrument (pulsejack plugins --filter Instrument lists them)"),
        VoiceField("controls", .controls, "control values by port symbol; the rest keep the plugin's defaults"),
        VoiceField("note", .whole(0...127), default: .whole(60), "the MIDI note a firing plays"),
        VoiceField("length", .number(0.001...60), default: .number(0.5), "seconds from a note's note-on to its note-off"),
        VoiceField("channel", .whole(1...16), default: .whole(1), "the MIDI channel of the notes"),
        VoiceField("preset", .text, "one of the plugin's own presets, by name (pulsejack plugins --presets URI lists them), before its controls"),
        VoiceField("state", .folder, "a saved plugin state (a session save writes it)"),
        VoiceField("isolate", .flag, default: .flag(false), "host the plugin in a process of its own: a crash or a hang silences this voice until it restarts, and nothing else"),
    ]

    package func check(_ voice: LoadedVoice) throws {
        if voice.definition.option("plugin")?.text == nil { throw voice.error("plugin", "an lv2 voice needs the plugin's URI") }
    }

    package func build(_ voice: LoadedVoice, in context: VoiceBuildContext) throws -> any Voice {
        let definition = voice.definition
        let plugin = try context.plugins.instance(definition.option("plugin")?.text ?? "",
                                                  controls: definition.option("controls")?.controls ?? [:],
                                                  preset: definition.option("preset")?.text,
                                                  state: definition.option("state")?.text.map { voice.soundPath($0) + "/1" },
                                                  key: "\(definition.name)/1",
                                                  isolate: definition.option("isolate")?.flag == true) { field, message in
            voice.error(field ?? "plugin", message)
        }
        // An LV2 plugin that plays from the host's time alone (a metronome, a tempo-synced
        // generator) is an instrument too: its firings have no note to play. Every CLAP plugin
        // takes the transport, so a CLAP instrument needs a note input.
        let playsFromTime = plugin.takesTime && CLAPWorld.id(of: plugin.uri) == nil
        guard plugin.hasMIDIInput || playsFromTime, !plugin.audioOutputs.isEmpty else {
            throw voice.error("plugin", "\(plugin.name) (\(plugin.uri)) is not an instrument: it needs a MIDI or note input (or, LV2, to take "
                              + "the host's time, time:Position) and an audio output")
        }
        return LV2InstrumentVoice(plugin: plugin, note: whole("note", of: voice), lengthSeconds: number("length", of: voice),
                                  channel: UInt8(whole("channel", of: voice) - 1))
    }

    package var workouts: [[String: VoiceOption]] {
        [["plugin": .text("http://drobilla.net/plugins/mda/EPiano"), "length": .number(0.05)]]
    }

    package func parameters(of voice: any Voice) -> [String: VoiceOption] {
        guard let instrument = voice as? LV2InstrumentVoice else { return [:] }
        return ["note": .whole(instrument.note), "length": .number(instrument.lengthSeconds), "channel": .whole(Int(instrument.channel) + 1),
                "isolate": .flag(instrument.published.isolation != nil)]
    }
}
