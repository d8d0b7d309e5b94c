import Renders
import Foundation
import Inputs
import Realtime
import TestSupport
import XCTest
import Engine
import Presets

/// A live take that lost cycles (an xrun) re-renders identically: its session log records each
/// lost cycle (and a skip taken back, a late reading), and the offline render passes over the
/// same frames. The reference is the engine itself driven as `ProcessHost` drives it: skipped
/// frames are silence in the recording, and a rewind drops the frames that follow it.
final class LostCycleReplayTests: XCTestCase {
    func testASessionLogsLostCyclesArePassedOverInTheReRender() throws {
        let preset = try LoadedPreset.load(path: Shipped.presets.appendingPathComponent("default").path)
        let applied = SPSCRing<ControlMessage>(minimumCapacity: 16_384)
        let fired = SPSCRing<FiredVoice>(minimumCapacity: 4096)
        let control = SPSCRing<ControlMessage>(minimumCapacity: 64)
        let period = 256
        let live = try EngineGraph.build(preset: preset, sampleRate: 48_000, maxFrames: period) {
            $0.sources = [control]
            $0.appliedReports = applied
            $0.firedReports = fired
        }
        control.producer.push(ControlMessage(.tempo(bpm: 97)))
        live.warmUp()
        var recording: [Float] = [], toDrop = 0
        let left = UnsafeMutablePointer<Float>.allocate(capacity: period), right = UnsafeMutablePointer<Float>.allocate(capacity: period)
        defer { left.deallocate(); right.deallocate() }
        for cycle in 0..<900 {
            // Lost cycles where a beat's pulses fall, and a skip that a later reading takes back.
            switch cycle {
            case 100, 400: live.skip(frames: 3 * period); recording += [Float](repeating: 0, count: 3 * period)
            case 600: live.skip(frames: period); recording += [Float](repeating: 0, count: period)
            case 601:
                live.rewind(frames: period)
                toDrop += period
            default: break
            }
            if cycle == 300 { control.producer.push(ControlMessage(.voiceTrigger(voice: 2, velocity: 0.7))) }
            if cycle == 500 { control.producer.push(ControlMessage(.tempo(bpm: 131))) }
            live.process(frames: period, left: left, right: right)
            let dropped = min(toDrop, period)
            toDrop -= dropped
            recording += UnsafeBufferPointer(start: left + dropped, count: period - dropped)
        }
        XCTAssertEqual(live.handle.counters.snapshot()[.framesSkipped], 6 * period, "lost cycles, one taken back")
        var liveFired: [FiredVoice] = []
        while let report = fired.consumer.pop() { liveFired.append(report) }

        var lines = [SessionLog.headerLine(.init(pulsejack_session: 1, sample_rate: 48_000, voices: live.handle.voiceNames, performers: nil))]
        while let message = applied.consumer.pop() { if let line = SessionLog.line(for: message) { lines.append(line) } }
        XCTAssertEqual(lines.filter { $0.contains("frames_skipped") }.count, 4, "three skips and one taken back")
        lines.append(SessionLog.endLine(frame: live.framePosition))
        let log = try SessionLog.parse(lines.joined(separator: "\n"), path: "take.jsonl")

        let temporary = try TemporaryFolder("lost")
        defer { temporary.remove() }
        let folder = temporary.url
        // Another period size offline: the render cuts its periods at the lost cycles.
        let renderer = try OfflineRenderer(preset: preset, sampleRate: 48_000, periodFrames: 100, messages: log.messages)
        var offlineFired: [FiredVoice] = []
        _ = try renderer.render(frames: try XCTUnwrap(log.endFrame), to: folder.appendingPathComponent("take.wav").path,
                                onFired: { offlineFired.append($0) })
        XCTAssertEqual(offlineFired, liveFired, "the same voices at the same frames")
        XCTAssertGreaterThan(liveFired.count, 25, "4.8 s at 97 and 131 BPM")
        let rendered = try WavFile(path: folder.appendingPathComponent("take.wav").path).channels[0]
        XCTAssertEqual(rendered.count, recording.count, "the same length as the live recording")
        XCTAssertLessThanOrEqual(zip(rendered, recording).map { abs($0 - $1) }.max() ?? 1, 1e-6, "and the same samples")
    }
}
