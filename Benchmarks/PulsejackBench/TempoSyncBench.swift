import Engine
import Foundation
import JackBackend
import JackPeers
import Presets
import Realtime
import TestSupport

/// Row 19, the heart's tempo to other programs: what Ableton Link costs the process callback,
/// how far the clicks a JACK ear hears lie from a Link peer's beats (LinkPython-extern, in a
/// network namespace of the bench's own: Link's discovery never leaves it), and where
/// `--midi-clock`'s clocks land against their ideal places.
enum TempoSyncBench {
    static let command = ".build/release/pulsejack-bench --only tempo"

    static func run(runs: Int) throws -> [BenchRow] {
        let lead = try linkCost(follows: false), follow = try linkCost(follows: true)
        var rows = [
            BenchRow(row: "19. Tempo to other programs",
                     measure: "Ableton Link on the process thread, per period (`LinkBridge.period`: the session captured, the heart's tempo committed at its changes — every 1000th period here — or the session's taken, the grid heart aligned), mean of 200000 periods, the session not joined (the same calls; no network)",
                     pulsejack: String(format: "leading %.0f ns, following %.0f ns", lead, follow),
                     reference: "the period: 256 frames = 5333 µs", command: command),
        ]
        if let missing = LinkTestPeer.missing {
            FileHandle.standardError.write(Data("skipping the Link peer row: \(missing)\n".utf8))
        } else {
            rows.append(try linkDistanceRow(rounds: min(2, max(1, runs))))
        }
        rows.append(try midiClockRow())
        return rows
    }

    /// Mean nanoseconds of one period's Link work on an engine whose heart changes tempo.
    static func linkCost(follows: Bool) throws -> Double {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 64)
        let engine = try EngineGraph.build(preset: BenchFixtures.sampleVoices(1), sampleRate: 48_000, maxFrames: 256) { $0.sources = [ring] }
        let session = try LinkSession(bpm: 120, settings: LinkSession.Settings(follows: follows))
        let bridge = LinkBridge(session: session)
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        var micros = Int64(1_000_000), spent: UInt64 = 0
        let periods = 200_000
        for period in 0..<periods {
            if period % 1000 == 0 { ring.producer.push(ControlMessage(frame: ControlMessage.immediate, .tempo(bpm: 100 + Double(period / 1000 % 40)))) }
            let start = DispatchTime.now().uptimeNanoseconds
            bridge.period(engine, cycleMicros: micros, rolling: nil)
            spent += DispatchTime.now().uptimeNanoseconds - start
            engine.process(frames: 256, left: left, right: right)
            micros += 5333
        }
        return Double(spent) / Double(periods)
    }

    /// pulsejack leading at 100 BPM and following a peer at 133, each 8 s in a namespace: every
    /// click heard after the first second, its distance from the peer's nearest beat.
    static func linkDistanceRow(rounds: Int) throws -> BenchRow {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        var distances: [Double] = []
        for round in 0..<rounds {
            distances += try linkDistances(peer: ["watch", "--seconds", "8"], run: ["--bpm", "100", "--link"], server: server, tag: "lead\(round)")
            distances += try linkDistances(peer: ["lead", "--bpm", "133", "--seconds", "8"], run: ["--bpm", "90", "--follow-link"], server: server,
                                           tag: "follow\(round)")
        }
        let stats = Statistics(distances.map { $0 / 1000 })
        return BenchRow(row: "19. Tempo to other programs",
                        measure: "the clicks a JACK ear hears (JACK's DLL time plus the port's playback latency, Link's convention) against a LinkPython-extern peer's nearest beat, pulsejack leading at 100 BPM and following the peer's 133, 8 s each, in a network namespace, 256-frame period (\(stats.count) clicks)",
                        pulsejack: String(format: "distance: median %.3f ms, p99 %.3f ms, max %.3f ms", stats.median, stats.percentile(99), stats.max),
                        reference: "the test's bound: 1 ms; a frame at 48 kHz: 0.021 ms", command: command)
    }

    static func linkDistances(peer arguments: [String], run options: [String], server: PrivateJackServer, tag: String) throws -> [Double] {
        let folder = try TemporaryFolder("bench-link-\(tag)")
        defer { folder.remove() }
        try "voices:\n  - {name: click, kind: click, gain: 0.89}\n".write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let network = try LabNetwork("bench-link")
        defer { network.remove() }
        let peer = try LinkTestPeer.start(arguments + ["--out", folder.file("peer.json")], network: network)
        let name = "pj-bench-link-\(getpid())"
        let run = try BenchRun(["run", "--preset", folder.path, "--name", name, "--no-osc"] + options, client: name, server: server, network: network)
        defer { run.stop() }
        let ear = try CaptureClient(name: "pj-bench-link-ear", threshold: 0.5, server: server.name)
        defer { ear.close() }
        try ear.connect(from: "\(name):out_L")
        guard peer.finish(seconds: 30) else { throw BenchFailure("the Link peer did not finish: \(peer.stderr)") }
        let latency = Double(ear.playbackLatency(of: "\(name):out_L") ?? 0) / 48_000
        let timeline = try LinkPeerTimeline(folder.file("peer.json"))
        return ear.onsetJackSeconds.map { ($0 + latency) * 1e6 }.filter { $0 > timeline.came + 1e6 }.compactMap(timeline.distanceFromBeat)
    }

    /// `--midi-clock` heard by a JACK MIDI capture at 133 BPM, where a clock is 902.26 frames:
    /// each clock's distance from its exact place (the clocks' own best line at that spacing),
    /// and the beats the click's notes mark holding 24 each.
    static func midiClockRow() throws -> BenchRow {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        let folder = try TemporaryFolder("bench-midi-clock")
        defer { folder.remove() }
        try "voices:\n  - {name: click, kind: click}\n".write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let name = "pj-bench-clock-\(getpid())"
        let run = try BenchRun(["run", "--preset", folder.path, "--name", name, "--no-osc", "--bpm", "133", "--midi-clock"], client: name, server: server)
        defer { run.stop() }
        let clocks = try MidiCapture(name: "pj-bench-clock-device", server: server.name), notes = try MidiCapture(name: "pj-bench-clock-notes", server: server.name)
        defer { clocks.close(); notes.close() }
        try clocks.connect(from: "\(name):clock_out")
        try notes.connect(from: "\(name):midi_out")
        usleep(20_000_000)
        let ticks = clocks.received.filter { $0.status == 0xF8 }.map(\.frame), beats = notes.received.filter(\.isNoteOn).map(\.frame)
        let whole = zip(beats, beats.dropFirst()).filter { beat, next in ticks.filter { $0 >= beat && $0 < next }.count == 24 }.count
        // Clock k of the capture at a + k·spacing: a the mean of (frame − k·spacing).
        let spacing = 48_000.0 * 60 / (133 * 24)
        let start = ticks.enumerated().map { Double($1) - Double($0) * spacing }.reduce(0, +) / Double(max(ticks.count, 1))
        let stats = Statistics(ticks.enumerated().map { abs(Double($1) - start - Double($0) * spacing) })
        return BenchRow(row: "19. Tempo to other programs",
                        measure: "`run --midi-clock --bpm 133` on a private dummy jackd (256 frames), a JACK MIDI capture, 20 s: each clock's distance from its exact place, a clock every 902.26 frames (\(stats.count) clocks)",
                        pulsejack: String(format: "mean %.3f frames, max %.3f frames; %d of %d beats (the click's notes on `midi_out`) hold exactly 24 clocks",
                                          stats.mean, stats.max, whole, max(beats.count - 1, 0)),
                        reference: "half a frame at most, a quarter on average: each clock on the frame nearest its place", command: command)
    }
}
