import Inputs
import Foundation
import TestSupport
import Voices
import EngineFixtures
import XCTest
import Realtime
@testable import Engine
@testable import JackBackend
@testable import Presets
@testable import SoundFiles

/// The cross-thread reads that Swift 5 mode let through (issue 11), each run with real threads so
/// that ThreadSanitizer (`make test-tsan`) reports them should the synchronisation go. Before the
/// fix, each of these was a TSan "data race" report.
final class CrossThreadTests: XCTestCase {
    /// Runs `periods` periods of `frames` on a thread of its own (the process thread's stand-in),
    /// each taking at least `pace` seconds of wall time (as a sound card would pace it).
    /// `stall`: seconds it waits before its first period.
    private func processThread(_ engine: RealtimeEngine, periods: Int, frames: Int = 256,
                               pace: Double = 0, stall: Double = 0) -> (Thread, DispatchSemaphore) {
        let done = DispatchSemaphore(value: 0)
        // The engine is the process thread's alone while it runs there (not Sendable).
        nonisolated(unsafe) let engine = engine
        let thread = Thread {
            if stall > 0 { usleep(useconds_t(stall * 1e6)) }
            let left = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            let right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            for _ in 0..<periods {
                let started = Date()
                engine.process(frames: frames, left: left, right: right)
                let rest = pace - Date().timeIntervalSince(started)
                if rest > 0 { usleep(useconds_t(rest * 1e6)) }
            }
            left.deallocate()
            right.deallocate()
            done.signal()
        }
        return (thread, done)
    }

    /// A session save whose request meets a stalled process thread (a NetJACK2 master away: no
    /// cycle, yet no reconnect) gives up after its timeout and copies the settings itself. The
    /// process thread, back, must not serve the stale request and write the same copy behind its
    /// back: before the fix it did, here and (run with real threads) as a TSan race.
    func testAProcessThreadBackFromAStallDoesNotServeAWithdrawnSnapshotRequest() throws {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 16)
        let engine = Fixtures.clickEngine(maxFrames: 256, sources: [ring])
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        // Stalled: no period runs while the save waits, so it copies for itself.
        XCTAssertEqual(engine.handle.voiceStates(live: true, timeout: 0.05)["click"]?.gain, 1)
        // Back, with a gain change in its first period.
        ring.producer.push(ControlMessage(.voiceParameter(voice: 0, .gain(0.25))))
        _ = Fixtures.run(engine, sizes: [256], periods: 1)
        XCTAssertEqual(engine.handle.stateSnapshot.values[0].gain, 1, "the withdrawn request was served after the save had copied")

        // With real threads: the process thread stalls well past the save's timeout (the save
        // then copies for itself), and runs after it with the request withdrawn. A stall just as
        // long as the timeout would let the copy meet the thread's first period: the copy is
        // made only while no period runs.
        ring.producer.push(ControlMessage(.voiceParameter(voice: 0, .gain(0.5))))
        let (thread, done) = processThread(engine, periods: 400, pace: 0.0005, stall: 0.3)
        thread.start()
        let states = engine.handle.voiceStates(live: true, timeout: 0.05)
        XCTAssertNotNil(states["click"])
        done.wait()
        // Answered as usual once the thread runs again.
        let (again, finished) = processThread(engine, periods: 2000, pace: 0.0005)
        again.start()
        XCTAssertEqual(engine.handle.voiceStates(live: true)["click"]?.gain, 0.5, "a request the running thread answers")
        finished.wait()
    }

    /// The mood DJ asks how much of the track is left on a control thread while the process
    /// thread plays it and swaps tracks (it read the player's `position`, `playing` and
    /// `timeRatio`, which the swap exchanges).
    func testTheMoodDJReadsTheTrackPlayerWhileThePlayerSwapsTracks() throws {
        let folder = NSTemporaryDirectory() + "pulsejack-race-dj-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = folder + "/library"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let sox = try XCTUnwrap(Subprocess.which("sox"))
        for (name, frequency) in [("a", 220), ("b", 330), ("c", 440)] {
            let made = try Subprocess.run(sox, ["-n", "-r", "48000", "-c", "2", "--comment", "Comment=#calm bpm=90",
                                                "\(library)/\(name).flac", "synth", "0.5", "sine", "\(frequency)", "vol", "0.3"])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        try "voices:\n  - {name: music, kind: track, library: library}\n"
            .write(toFile: folder + "/preset.yaml", atomically: true, encoding: .utf8)
        let preset = try LoadedPreset.load(path: folder)
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 64)
        let engine = try EngineGraph.build(preset: preset, sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        engine.handle.trackPlayer(at: 0)!.crossfadeFrames = 2_400
        let dj = try XCTUnwrap(MoodTrackDJ(handle: engine.handle, voice: "music", library: TrackLibrary.scan(folder: library)))
        ring.producer.push(ControlMessage(frame: 0, .tempo(bpm: 120)))  // stretched: the ratio is 0.75
        let swapper = ClipSwapper(handle: engine.handle, preset: preset, offline: true)
        // At half real time: the DJ, polling every 2 ms, sees every track's end however slow the
        // build (ThreadSanitizer) makes loading the next one.
        let (thread, done) = processThread(engine, periods: 48_000 * 4 / 256, pace: 0.5 * 256 / 48_000)
        thread.start()
        var swaps = 0
        while done.wait(timeout: .now() + .milliseconds(2)) == .timedOut {
            if let message = try dj.tick(mood: "calm", margin: 0.05) {
                swaps += 1
                XCTAssertTrue(ring.producer.push(message))
            }
            swapper.releaseRetired()
        }
        swapper.releaseRetired()
        // 4 s of half-second tracks stretched to 0.375 s: a swap every track or so.
        XCTAssertGreaterThanOrEqual(swaps, 4, "the DJ saw each track near its end")
    }

    /// The status reads the tempo on the OSC thread while the process thread applies tempo
    /// changes (it read `engine.hearts.clock(0).bpm`, which the process thread writes).
    func testTheTempoIsReadOnAnotherThreadWhileItChanges() throws {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 4096)
        let engine = Fixtures.clickEngine(maxFrames: 64, sources: [ring])
        let tempos = (0..<2_000).map { 60 + Double($0 % 120) }
        let (thread, done) = processThread(engine, periods: 4_000, frames: 64)
        thread.start()
        var sent = 0
        var seen = Set<Double>()
        while done.wait(timeout: .now()) == .timedOut {
            if sent < tempos.count, ring.producer.push(ControlMessage(.tempo(bpm: tempos[sent]))) { sent += 1 }
            if let bpm = engine.handle.publishedTempo { seen.insert(bpm) }
        }
        // The process thread may have stopped before the last tempos were drained: one more period here.
        _ = Fixtures.run(engine, sizes: [64], periods: 1)
        XCTAssertFalse(seen.isEmpty)
        XCTAssertTrue(seen.isSubset(of: Set(tempos)), "only tempos that were sent, never a torn value: \(seen.subtracting(tempos).prefix(5))")
        XCTAssertEqual(engine.handle.publishedTempo, tempos[sent - 1], "the last tempo applied")
    }

    /// `deactivate()` on one thread while another closes the client (it read the client handle
    /// without the lock `close` takes, and force-unwrapped it).
    func testTheClientIsDeactivatedAndClosedFromTwoThreads() throws {
        guard TestServer.join() != nil else { throw XCTSkip(TestServer.missing) }
        JackClient.silenceLibraryMessages()
        for round in 0..<5 {
            let client = try JackClient(name: "pulsejack-race-\(round)")
            let engine = Fixtures.clickEngine(sampleRate: client.sampleRate, maxFrames: client.bufferSize)
            try client.activate(engine: engine)
            let closed = DispatchSemaphore(value: 0)
            let other = Thread {
                for _ in 0..<50 {
                    _ = client.dspLoad
                    _ = client.framesSinceCycleStart
                    _ = client.name
                }
                client.deactivate()
                closed.signal()
            }
            other.start()
            usleep(UInt32(round * 300))
            client.close()
            XCTAssertEqual(closed.wait(timeout: .now() + 5), .success)
            XCTAssertEqual(client.dspLoad, 0, "closed: no client to ask")
        }
    }
}
