import Inputs
import Foundation
import TestSupport
import Voices
import EngineFixtures
import XCTest
import Realtime
@testable import Presets
@testable import SoundFiles

/// MusicMood's player: tracks chosen by mood, swapped only between tracks, with a crossfade.
final class MoodTrackTests: XCTestCase {
    private func tone(_ path: String, frequency: Double, seconds: Double, comment: String) throws {
        let sox = try XCTUnwrap(Subprocess.which("sox"))
        let made = try Subprocess.run(sox, ["-n", "-r", "48000", "-c", "2", "--comment", comment, path, "synth", "\(seconds)",
                                            "sine", "\(frequency)", "vol", "0.3"])
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    func testTheNextTrackMatchesTheMoodAndCrossfadesInWithoutAClick() throws {
        let folder = NSTemporaryDirectory() + "pulsejack-mood-\(getpid())"
        let library = folder + "/library"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        try tone(library + "/a-first.flac", frequency: 220, seconds: 3, comment: "Comment=#calm bpm=90")
        try tone(library + "/b-happy.flac", frequency: 440, seconds: 6, comment: "Comment=#happy bpm=90")
        try tone(library + "/c-sad.flac", frequency: 330, seconds: 6, comment: "Comment=#sad bpm=90")
        try "voices:\n  - {name: music, kind: track, library: library}\n"
            .write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        let preset = try LoadedPreset.load(path: folder)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = try EngineGraph.build(preset: preset, sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        let dj = try XCTUnwrap(MoodTrackDJ(handle: engine.handle, voice: "music", library: TrackLibrary.scan(folder: library)))
        XCTAssertEqual(dj.choose(mood: "sad")?.path.hasSuffix("c-sad.flac"), true)
        XCTAssertEqual(dj.choose(mood: "happy")?.path.hasSuffix("b-happy.flac"), true)
        XCTAssertNotNil(dj.choose(mood: nil), "undefined mood: any track")

        engine.handle.trackPlayer(at: 0)!.crossfadeFrames = 24_000
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 90)))   // the track's own tempo: ratio 1
        let swapper = ClipSwapper(handle: engine.handle, preset: preset, offline: true)
        var output: [Float] = []
        var swappedAt: Int?
        for period in 0..<(48_000 * 6 / 256) {
            if let message = try dj.tick(mood: "happy", margin: 0.2) {
                XCTAssertNil(swappedAt, "one swap, at the end of the first track")
                swappedAt = period * 256
                ring.producer.push(message)
            }
            output += Fixtures.run(engine, sizes: [256], periods: 1).left
            swapper.releaseRetired()
        }
        let swap = try XCTUnwrap(swappedAt)
        XCTAssertGreaterThan(swap, 48_000 * 3 / 2, "not before the first track is near its end")
        XCTAssertLessThan(swap, 48_000 * 3)
        // No click: the largest step stays within what two 0.3-level tones can do in one sample.
        let largestStep = zip(output.dropFirst(), output).map { abs($0 - $1) }.max()!
        XCTAssertLessThan(largestStep, Float(2 * Double.pi * 440 / 48_000 * 0.3 * 1.2))
        // After the crossfade the happy track (440 Hz) plays.
        let window = output[(swap + 30_000)..<(swap + 30_000 + 4800)]
        let crossings = zip(window, window.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        XCTAssertEqual(Double(crossings) / 0.1, 440, accuracy: 15)
    }
}
