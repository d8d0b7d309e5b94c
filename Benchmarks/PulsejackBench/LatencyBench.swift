import Control
import Foundation
import JackEngine
import JackPeers

/// Row 2: sensor message to sound, in frames. JACK MIDI: a pad client plays note-ons at varying
/// offsets; a capture client hears the click. The OSC rows wait for the OSC input.
enum LatencyBench {
    static func midi(seconds: Double) throws -> (latencies: [Int64], notes: Int) {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        let client = try JackClient(name: "pulsejack")
        let engine = try EngineGraph.build(preset: BenchFixtures.midiClick(note: 60), sampleRate: client.sampleRate,
                                           maxFrames: client.bufferSize)
        let capture = try CaptureClient(name: "ear")
        try client.activate(engine: engine)
        try capture.connect(from: "\(client.name):out_L")
        let pad = try MidiSender(name: "pad", note: 60, everyPeriods: 4)
        try pad.connect(to: "\(client.name):midi_in")
        usleep(UInt32(seconds * 1_000_000))
        client.deactivate()
        pad.close()
        capture.close()
        client.close()
        let heard = capture.onsetJackFrames
        let sent = pad.sentFrames.filter { $0 >= (heard.first ?? .max) - 256 }
        var latencies: [Int64] = []
        var next = 0
        for frame in sent {
            while next < heard.count && heard[next] < frame { next += 1 }
            guard next < heard.count else { break }
            latencies.append(heard[next] - frame)
        }
        return (latencies, sent.count)
    }

    static func run(runs: Int) throws -> [BenchRow] {
        var maxima: [Double] = [], medians: [Double] = [], counts: [Int] = []
        for _ in 0..<runs {
            let result = try midi(seconds: 4)
            let stats = Statistics(integers: result.latencies)
            maxima.append(stats.max)
            medians.append(stats.median)
            counts.append(result.latencies.count)
        }
        return [
            BenchRow(row: "2. Control latency", measure: "JACK MIDI note-on → sound (\(counts.min() ?? 0)+ notes a run, offsets 0…255)",
                     pulsejack: "median \(Int(Statistics(medians).median)), max \(Int(Statistics(maxima).median)) frames",
                     reference: "the pad's own timestamp (goal: same period, same offset: 0 frames)",
                     command: ".build/release/pulsejack-bench --only latency"),
        ]
    }
}
