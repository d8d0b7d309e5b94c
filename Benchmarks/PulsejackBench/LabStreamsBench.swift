import Foundation
import JackPeers
import TestSupport

/// Row 16, the lab's bus: `pulsejack run --lsl --lsl-markers` (the release build) on a private
/// dummy jackd at 256 frames, with pylsl (the pinned wheel) as the peer on this machine. A pylsl
/// marker outlet sends 60 `voice/click` cues 0.2–0.45 s apart; a JACK ear hears each click, its
/// JACK frame put on LSL's clock (jack_frames_to_time, corrected from jackd2's
/// CLOCK_MONOTONIC_RAW to CLOCK_MONOTONIC, the offset read before and after); a pylsl inlet reads pulsejack's own markers.
/// - a cue's time stamp → its click heard, with `--lsl-delay 0` (as soon as it arrives) and with
///   the default 0.05 s (then: how far from exactly 50 ms);
/// - a frame heard (its marker's time stamp) → the marker's arrival at the pylsl inlet.
enum LabStreamsBench {
    struct Run {
        var cueToSound: [Double] = []
        var heardToInlet: [Double] = []
        /// |a marker's time stamp − when the ear heard its click|.
        var stampError: [Double] = []
    }

    static func measure(delay: Double, server: PrivateJackServer) throws -> Run {
        let folder = try TemporaryFolder("bench-lsl")
        defer { folder.remove() }
        try "voices:\n  - {name: click, kind: click, on_beat: false, gain: 0.89}\n"
            .write(toFile: folder.file("preset.yaml"), atomically: true, encoding: .utf8)
        let cues = "pj-bench-cues-\(getpid())", name = "pj-bench-lsl-\(getpid())"
        let cueCount = 60
        // Inside a network namespace with loopback alone: LSL's discovery stays on the machine.
        let network = try LabNetwork("bench-lsl")
        defer { network.remove() }
        let cuePeer = try LSLPeer(["markers", "--name", cues, "--wait", "4", "--count", "\(cueCount)", "--gaps", "0.2,0.35,0.25,0.45,0.3",
                                   "--marker", "voice/click", "--out", folder.file("cues.json")], network: network)
        let run = try BenchRun(["run", "--preset", folder.path, "--name", name, "--no-osc", "--lsl", "--lsl-markers", cues, "--lsl-delay", "\(delay)"],
                               client: name, server: server, network: network)
        defer { run.stop() }
        let ear = try CaptureClient(name: "pj-bench-lsl-ear", threshold: 0.5, server: server.name)
        defer { ear.close() }
        try ear.connect(from: "\(name):out_L")
        let listener = try LSLPeer(["listen", "--name", name, "--seconds", "24", "--out", folder.file("markers.json")], network: network)
        listener.finish(seconds: 40)
        cuePeer.finish(seconds: 10)
        let heard = ear.onsetMonotonicSeconds
        let sent = try LSLPeer.json(folder.file("cues.json")) as? [Double] ?? []
        let markers = (try LSLPeer.json(folder.file("markers.json")) as? [[Any]] ?? []).filter { $0[2] as? String == "voice/click" }
        guard heard.count == cueCount, sent.count == cueCount, markers.count == cueCount else {
            throw BenchFailure("cues \(sent.count), clicks heard \(heard.count), markers \(markers.count) (of \(cueCount))")
        }
        var result = Run()
        result.cueToSound = zip(sent, heard).map { $1 - $0 }
        result.stampError = zip(markers, heard).compactMap { marker, heard in (marker[0] as? Double).map { abs($0 - heard) } }
        result.heardToInlet = markers.compactMap { marker in
            guard let stamp = marker[0] as? Double, let received = marker[1] as? Double else { return nil }
            return received - stamp
        }
        return result
    }

    static func run(runs: Int) throws -> [BenchRow] {
        guard LSLPeer.missing == nil else { throw BenchFailure(LSLPeer.missing!) }
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        var atOnce = Run(), delayed = Run()
        // Each round is half a minute live: two rounds at most.
        for _ in 0..<min(2, max(1, runs)) {
            let first = try measure(delay: 0, server: server), second = try measure(delay: 0.05, server: server)
            atOnce.cueToSound += first.cueToSound
            atOnce.heardToInlet += first.heardToInlet + second.heardToInlet
            atOnce.stampError += first.stampError + second.stampError
            delayed.cueToSound += second.cueToSound
        }
        let now = Statistics(atOnce.cueToSound.map { $0 * 1000 }), fixed = Statistics(delayed.cueToSound.map { abs($0 - 0.05) * 1000 })
        let inlet = Statistics(atOnce.heardToInlet.map { $0 * 1000 }), stamped = Statistics(atOnce.stampError.map { $0 * 1000 })
        func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
        let command = ".build/release/pulsejack-bench --only lsl"
        return [
            BenchRow(row: "16. Lab's bus", measure: "an LSL marker's time stamp (pylsl outlet, this machine) → its click heard (a JACK ear, on LSL's clock), \(now.count) cues, 256-frame period, --lsl-delay 0",
                     pulsejack: "median \(ms(now.median)), p99 \(ms(now.percentile(99))), max \(ms(now.max)); with the default --lsl-delay 0.05, the delay's distance from 50 ms: median \(ms(fixed.median)), max \(ms(fixed.max)) (\(fixed.count) cues)",
                     reference: "one period (5.33 ms) plus the input's poll (4 ms) and LSL's own delivery; with a delay, the cues' spacing to the frame", command: command),
            BenchRow(row: "16. Lab's bus", measure: "a `voice/click` marker's time stamp against the moment a JACK ear hears its click (its cycle's time by JACK's DLL, on CLOCK_MONOTONIC), \(stamped.count) markers",
                     pulsejack: "distance: median \(ms(stamped.median)), p99 \(ms(stamped.percentile(99))), max \(ms(stamped.max))",
                     reference: "0: the marker says when its frame is heard (the frame on LabClock's line, kept on JACK's DLL)", command: command),
            BenchRow(row: "16. Lab's bus", measure: "a click heard (its `voice/click` marker's time stamp) → the marker's arrival at a pylsl inlet, \(inlet.count) markers",
                     pulsejack: "median \(ms(inlet.median)), p99 \(ms(inlet.percentile(99))), max \(ms(inlet.max))",
                     reference: "after the frame is rendered and the view's thread hands it on; the dummy driver reports no playback latency, so heard = rendered here (a sound card's latency, a period or more, puts the marker ahead of its sound); the page's WebSocket message (row 10): median -2.2 ms", command: command),
        ]
    }
}
