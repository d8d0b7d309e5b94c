import Renders
import Runs
import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Engine
@testable import Presets

/// A session save writes the preset as it plays, standing alone: loaded from anywhere, it must
/// play exactly what the original plays.
final class PresetSaveTests: XCTestCase {
    private func render(_ preset: LoadedPreset, to out: String) throws -> [Float] {
        let session = try HeartSession.load(path: Fixtures.presets.appendingPathComponent("default/demo-session.csv").path)
        let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: 256,
                                           messages: SessionSource.messages(for: session, sampleRate: 48_000))
        _ = try renderer.render(frames: 48_000 * 12, to: out)
        defer { unlink(out) }
        return try WavFile(path: out).channels[0]
    }

    /// The breathe preset saved with its second modulation switched off: loaded again, it starts
    /// off, the others on, and the saved preset plays like the original with it off.
    func testASavedPresetKeepsItsModulationsSwitches() throws {
        let original = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("breathe").path)
        let temporary = try TemporaryFolder("save-modulations")
        defer { temporary.remove() }
        let engine = try EngineGraph.build(preset: original, sampleRate: 48_000, maxFrames: 256)
        try original.save(to: temporary.file("preset.yaml"), bpm: nil, states: engine.handle.voiceStates(live: false),
                          modulationsOn: [true, false, true])
        let saved = try LoadedPreset.load(path: temporary.path)
        XCTAssertEqual(saved.preset.modulations?.map { $0.enabled ?? true }, [true, false, true])
        XCTAssertEqual(saved.preset.modulations?.map(\.to), original.preset.modulations?.map(\.to))
        let setup = try EngineGraph.setup(preset: saved, sampleRate: 48_000, maxFrames: 256)
        XCTAssertEqual(setup.modulations.map(\.enabled), [true, false, true])
    }

    func testASavedPresetPlaysLikeTheOriginalFromAnotherFolder() throws {
        // PulSonify includes shared voice files and overrides them with settings.
        let original = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("pulsonify").path)
        XCTAssertNotNil(original.preset.include)
        let temporary = try TemporaryFolder("save")
        defer { temporary.remove() }
        let folder = temporary.path
        let engine = try EngineGraph.build(preset: original, sampleRate: 48_000, maxFrames: 256)
        try original.save(to: folder + "/preset.yaml", bpm: nil, states: engine.handle.voiceStates(live: false))

        let saved = try LoadedPreset.load(path: folder)
        XCTAssertNil(saved.preset.include)
        XCTAssertEqual(saved.voices.map(\.definition.name), original.voices.map(\.definition.name))
        let a = try render(original, to: folder + "/a.wav"), b = try render(saved, to: folder + "/b.wav")
        XCTAssertGreaterThan(a.map(abs).max() ?? 0, 0.05)
        XCTAssertEqual(a, b)
    }

    func testTheVoicesCurrentSettingsAndTempoAreWhatIsSaved() throws {
        let original = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent("click").path)
        let temporary = try TemporaryFolder("save-state")
        defer { temporary.remove() }
        let folder = temporary.path
        let state = VoiceState(enabled: false, gain: 0.25, pan: -0.5, rate: BeatRate(everyNthBeat: 2, subdivision: 3))
        try original.save(to: folder + "/preset.yaml", bpm: 91.5, states: ["click": state])
        let text = try String(contentsOfFile: folder + "/preset.yaml", encoding: .utf8)
        XCTAssertTrue(text.contains("bpm: 91.5"), "numbers a person can read: \(text)")
        let saved = try LoadedPreset.load(path: folder)
        XCTAssertEqual(saved.preset.bpm, 91.5)
        let click = try XCTUnwrap(saved.voices.first?.definition)
        XCTAssertEqual(click.enabled, false)
        XCTAssertEqual(click.gain, 0.25)
        XCTAssertEqual(click.pan, -0.5)
        XCTAssertEqual(click.rate, BeatRate(everyNthBeat: 2, subdivision: 3))
        // And the engine reports the state it holds, including changes made by messages.
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 8)
        let engine = try EngineGraph.build(preset: saved, sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        ring.producer.push(ControlMessage(.voiceParameter(voice: 0, .gain(0.75))))
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        XCTAssertEqual(engine.handle.voiceStates(live: false)["click"]?.gain, 0.75)
        XCTAssertEqual(engine.handle.settingChanges.load(ordering: .relaxed), 1)
    }
}
