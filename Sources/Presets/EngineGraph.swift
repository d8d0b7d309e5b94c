import UserFiles
import Plugins
import Realtime
import Foundation
import Inputs
import Voices
import Engine
import SoundFiles

/// Builds an engine's setup from a preset: loads every sound at the engine's rate, creates the
/// voices, hosts the plugins, and maps MIDI and the regions. Control thread, before activation:
/// everything that allocates happens here.
public enum EngineGraph {
    /// The engine a preset describes, with the wiring `wire` adds (its rings, outputs, grid role).
    public static func build(preset loaded: LoadedPreset, sampleRate: Int, maxFrames: Int, solo: String? = nil,
                             offline: Bool = false, libraries: [String: TrackLibrary] = [:], pluginStateFolder: String? = nil,
                             isolatePlugins: Bool = false, wire: (inout EngineSetup) throws -> Void = { _ in }) throws -> RealtimeEngine {
        var setup = try self.setup(preset: loaded, sampleRate: sampleRate, maxFrames: maxFrames, solo: solo, offline: offline,
                                   libraries: libraries, pluginStateFolder: pluginStateFolder, isolatePlugins: isolatePlugins)
        try wire(&setup)
        return RealtimeEngine(setup)
    }

    /// `offline`: dense convolution waits for its workers each block (deterministic renders).
    /// `rebuilding`: the running engine's handle, for the same preset at the server's new rate.
    /// `libraries`: track libraries already scanned, by folder (the rest are scanned here).
    /// `isolatePlugins`: every hosted plugin in a process of its own, as if each said `isolate: true`.
    public static func setup(preset loaded: LoadedPreset, sampleRate: Int, maxFrames: Int,
                             solo: String? = nil, offline: Bool = false,
                             libraries: [String: TrackLibrary] = [:], pluginStateFolder: String? = nil,
                             isolatePlugins: Bool = false, rebuilding: EngineHandle? = nil) throws -> EngineSetup {
        ProcessThread.assertOutside("building an engine's setup")
        let voices = loaded.voices
        if let solo, !voices.contains(where: { $0.definition.name == solo }) {
            throw InputError(file: loaded.file, field: "voices",
                             "no voice named '\(solo)' to solo (voices: \(voices.map(\.definition.name).joined(separator: ", ")))")
        }
        let plugins = PluginBuilder(sampleRate: sampleRate, maxFrames: maxFrames, offline: offline, stateFolder: pluginStateFolder,
                                    isolateAll: isolatePlugins)
        let slots = try voiceSlots(loaded, sampleRate: sampleRate, maxFrames: maxFrames, solo: solo, offline: offline,
                                   libraries: libraries, plugins: plugins)
        var notes: [Int: Int] = [:]
        for (index, voice) in voices.enumerated() { if let note = voice.definition.midiNote { notes[note] = index } }
        let regions = try loaded.regionTable()
        let master = loaded.preset.master
        let masterInserts = try master.map { master in
            try plugins.chain(master.inserts ?? [], place: "master", folder: loaded.folder) { path, message in
                InputError(file: loaded.file, line: loaded.line("master.inserts\(path)") ?? loaded.line("master.inserts"),
                           field: "master.inserts\(path)", message)
            }
        } ?? nil
        var setup = EngineSetup(sampleRate: sampleRate, maxFrames: maxFrames, slots: slots,
                                performers: max(1, loaded.performerNames.count), ensemble: loaded.ensembleTempo(),
                                masterInserts: masterInserts, regionNames: regions.names,
                                modulations: loaded.preset.modulations?.count ?? 0, rebuilding: rebuilding)
        let preset = loaded.preset
        setup.heartFadeSeconds = Float(PresetFields.dropoutFade.value(in: preset))
        setup.hrvWindowSeconds = PresetFields.hrvWindow.value(in: preset)
        (setup.modulations, setup.signalNames) = try ModulationTable.resolve(loaded, destinations: setup.handle.modulationDestinations())
        if let master {
            setup.setMaster(gainDB: PresetFields.masterGain.value(in: preset),
                            ceilingDB: master.limiter == true ? PresetFields.masterCeiling.value(in: preset) : nil,
                            releaseMS: PresetFields.masterRelease.value(in: preset))
        }
        setup.midi.noteVoices = notes
        for mapping in try loaded.regionNotes() { setup.midi.noteRegions[mapping.note] = mapping.region }
        let performance = try loaded.performanceSettings()
        setup.setPerformance(targets: regions.targets, skipRegion: performance.skipRegion, modeVoices: performance.modeVoices)
        let insertRoutes = setup.handle.insertRoutes()
        for change in try loaded.controlChanges() {
            switch change.target {
            case .voice(let voice, let parameter):
                guard voice < slots.count else { continue }
                setup.midi.voiceControls[change.controller] = (Int32(voice), parameter)
            case .insert(let key):
                guard let route = insertRoutes[key] else {
                    var error = change.place
                    let insert = (key as NSString).deletingLastPathComponent + "/"
                    let known = insertRoutes.keys.filter { $0.hasPrefix(insert) }.map { String($0.dropFirst(insert.count)) }.sorted()
                    error.message = "that insert has no control '\((key as NSString).lastPathComponent)' (its controls: \(known.joined(separator: ", ")))"
                    throw error
                }
                setup.midi.insertControls[change.controller] = route
            }
        }
        return setup
    }

    /// Each voice of the preset built, with its inserts and its mixer settings: instruments
    /// first, as the figures that play them (`instrument:`) need them.
    private static func voiceSlots(_ loaded: LoadedPreset, sampleRate: Int, maxFrames: Int, solo: String?, offline: Bool,
                                   libraries: [String: TrackLibrary], plugins: PluginBuilder) throws -> [VoiceSlot] {
        var slots: [VoiceSlot] = []
        // Voices that play the same file share one decoded buffer (it is immutable).
        var samples: [String: SampleBuffer] = [:]
        func sample(_ voice: LoadedVoice, _ field: String) throws -> SampleBuffer {
            let path = voice.sounds.first { $0.field == field }!.path
            if let loaded = samples[path] { return loaded }
            do {
                let buffer = try SampleFile.load(path: path, sampleRate: sampleRate)
                samples[path] = buffer
                return buffer
            } catch let error as InputError {
                throw voice.error(field, error.description)
            }
        }
        var context = VoiceBuildContext(sampleRate: sampleRate, maxFrames: maxFrames, offline: offline, libraries: libraries,
                                        load: sample, plugins: plugins)
        var built: [Int: any Voice] = [:]
        for (index, voice) in loaded.voices.enumerated() where voice.definition.kind == .lv2 {
            let instrument = try voice.definition.kind.descriptor.build(voice, in: context)
            built[index] = instrument
            if let sink = instrument as? any NoteSink { context.instruments[voice.definition.name] = sink }
        }
        for (index, voice) in loaded.voices.enumerated() {
            let definition = voice.definition
            let descriptor = definition.kind.descriptor
            let built = try built[index] ?? descriptor.build(voice, in: context)
            let inserts = try plugins.chain(definition.inserts ?? [], place: definition.name, folder: voice.folder) { path, message in
                voice.error("inserts\(path)", message)
            }
            slots.append(VoiceSlot(name: definition.name, voice: built,
                                   // Soloing a voice means hearing it, muted in the preset or not.
                                   enabled: solo == definition.name || definition.startsEnabled,
                                   gain: VoiceFields.gain.value(in: definition), pan: VoiceFields.pan.value(in: definition),
                                   rate: definition.rate,
                                   followsHeart: VoiceFields.onBeat.value(in: definition) && descriptor.followsHeartbeat(definition),
                                   silenced: solo != nil && solo != definition.name,
                                   velocity: VoiceFields.velocity.value(in: definition),
                                   chokeGroup: VoiceFields.choke.value(in: definition), inserts: inserts))
            let noteLength = VoiceFields.midiOutLength.value(in: definition) * Double(sampleRate)
            slots[slots.count - 1].midiOut = (channel: UInt8(VoiceFields.midiOutChannel.value(in: definition) - 1),
                                              key: UInt8(definition.midiOutKey(index: index)),
                                              length: max(1, Int64(noteLength.rounded())))
            slots[slots.count - 1].performer = loaded.performerIndex(of: voice)
            slots[slots.count - 1].together = loaded.together(of: voice, sampleRate: sampleRate)
        }
        return slots
    }
}
