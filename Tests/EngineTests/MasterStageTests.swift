import Renders
import Runs
import Inputs
import Foundation
import TestSupport
import EngineFixtures
import XCTest
import Realtime
@testable import Presets

/// The master stage: headroom in every shipped preset, a limiter that is transparent below its
/// ceiling and holds it above, and clipped samples counted.
final class MasterStageTests: XCTestCase {
    private let ceiling = Float(pow(10, -1.0 / 20))  // −1 dBFS

    /// Every shipped preset on the demo session, the 73-BPM session and a racing 150-BPM heart:
    /// peaks at or below −1 dBFS (read back with the test's own WAV reader), nothing clipped.
    /// The renders are independent, so both cores take them. 40 s each; `PULSEJACK_HEADROOM_SECONDS`
    /// shortens them where only the renders' independence is in question (`make test-tsan`: 3 s).
    func testEveryShippedPresetPeaksAtOrBelowMinusOneDBFS() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Fixtures.presets.path).sorted()
            .filter { FileManager.default.fileExists(atPath: Fixtures.presets.appendingPathComponent("\($0)/preset.yaml").path) }
        XCTAssertGreaterThanOrEqual(folders.count, 6)
        let fast = NSTemporaryDirectory() + "pulsejack-fast-\(getpid()).csv"
        try "time,bpm\n0,150\n40,150\n".write(toFile: fast, atomically: true, encoding: .utf8)
        defer { unlink(fast) }
        let sessions = [Fixtures.presets.appendingPathComponent("default/demo-session.csv").path,
                        Fixtures.presets.appendingPathComponent("sessions/73bpm.csv").path, fast]
        let renders = folders.flatMap { folder in sessions.map { (folder: folder, session: $0) } }
        let ceiling = self.ceiling
        let seconds = ProcessInfo.processInfo.environment["PULSEJACK_HEADROOM_SECONDS"].flatMap(Int64.init) ?? 40
        let problems = LockedBox([String]())
        DispatchQueue.concurrentPerform(iterations: renders.count) { index in
            let (folder, session) = renders[index]
            do {
                let preset = try LoadedPreset.load(path: Fixtures.presets.appendingPathComponent(folder).path)
                let source = try SessionSource.load(path: session, sampleRate: 48_000)
                let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, messages: source.messages)
                let out = NSTemporaryDirectory() + "pulsejack-headroom-\(getpid())-\(index).wav"
                defer { unlink(out) }
                let summary = try renderer.render(frames: seconds * 48_000, to: out)
                let audio = try WavFile(path: out)
                let peak = audio.channels.flatMap { $0 }.map(abs).max() ?? 0
                var found: [String] = []
                if peak > ceiling { found.append("\(folder) on \(session): peaks at \(20 * log10(peak)) dBFS") }
                if summary.counters[.clippedSamples] != 0 { found.append("\(folder) on \(session): \(summary.counters[.clippedSamples]) clipped") }
                problems.withLockedValue { $0 += found }
            } catch {
                problems.withLockedValue { $0.append("\(folder) on \(session): \(error)") }
            }
        }
        XCTAssertEqual(problems.withLockedValue { $0 }, [])
    }

    private func clicks(gains: [Float], limiter: Bool) -> (left: [Float], right: [Float], clipped: Int) {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 64)
        let engine = Fixtures.clickEngine(maxFrames: 256, voices: gains.indices.map { "click\($0)" }, sources: [ring]) {
            if limiter { $0.setMaster(gainDB: 0, ceilingDB: -1) }
        }
        for (index, gain) in gains.enumerated() { ring.producer.push(ControlMessage(frame: 0, .voiceParameter(voice: Int32(index), .gain(gain)))) }
        // The first beat after the gains' 10 ms slew has settled.
        ring.producer.push(ControlMessage(frame: 24_000, .tempo(bpm: 120)))
        let run = Fixtures.run(engine, sizes: [256], periods: 400)
        return (run.left, run.right, engine.handle.counters.snapshot()[.clippedSamples])
    }

    func testTheLimiterIsTransparentBelowItsCeilingAndHoldsItAbove() {
        let quiet = clicks(gains: [0.5], limiter: false), quietLimited = clicks(gains: [0.5], limiter: true)
        XCTAssertGreaterThan(quiet.left.max() ?? 0, 0.3)
        XCTAssertTrue(quietLimited.left == quiet.left && quietLimited.right == quiet.right, "below the ceiling: sample for sample the same")

        let loud = clicks(gains: [1, 1, 1], limiter: false), loudLimited = clicks(gains: [1, 1, 1], limiter: true)
        let loudPeak = (loud.left + loud.right).map(abs).max() ?? 0
        XCTAssertGreaterThan(loudPeak, 1, "three clicks on one beat pass full scale")
        let outside = (loud.left + loud.right).filter { abs($0) > 1 }.count
        XCTAssertEqual(loud.clipped, outside, "every sample past full scale counted")
        XCTAssertGreaterThan(outside, 0)
        let limitedPeak = (loudLimited.left + loudLimited.right).map(abs).max() ?? 0
        XCTAssertEqual(limitedPeak, ceiling, accuracy: 1e-6, "held at the ceiling")
        XCTAssertEqual(loudLimited.clipped, 0)
        // No look-ahead: every onset stays on its frame.
        let onsets = WavFile.onsets(loud.left, threshold: 0.1)
        XCTAssertEqual(onsets.count, 4, "beats at 0.5, 1, 1.5 and 2 s")
        XCTAssertTrue(WavFile.onsets(loudLimited.left, threshold: 0.1) == onsets)
    }

    func testMasterSettingsAreCheckedInThePreset() throws {
        let temporary = try TemporaryFolder("master")
        defer { temporary.remove() }
        let folder = temporary.path
        for (text, expected) in [("master: {ceiling_db: 3}\n", "preset.yaml:1: master.ceiling_db: 3.0 is outside -20.0…0.0 dBFS"),
                                 ("master:\n  limit: true\n", "preset.yaml:2: master.limit: unknown field")] {
            try ("voices:\n  - {name: a, kind: click}\n" + text).write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try LoadedPreset.load(path: folder)) { error in
                XCTAssertTrue("\(error)".contains(expected.replacingOccurrences(of: ":1:", with: ":3:").replacingOccurrences(of: ":2:", with: ":4:")), "\(error)")
            }
        }
    }
}
