import Inputs
import Foundation
import JackPeers
import JackBackend
import Presets

/// Row 2: sensor message to sound, in frames. JACK MIDI: a pad client plays note-ons at varying
/// offsets; a capture client hears the click. The OSC rows wait for the OSC input.
enum LatencyBench {
    /// Also: each note-on pulsejack sends on midi_out, against the frame its click sounds at.
    static func midi(seconds: Double) throws -> (latencies: [Int64], notes: Int, outOffsets: [Int64]) {
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
        let daw = try MidiCapture(name: "daw")
        try daw.connect(from: "\(client.name):midi_out")
        usleep(UInt32(seconds * 1_000_000))
        client.deactivate()
        pad.close()
        daw.close()
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
        // The nearest impulse to each note-on pulsejack sent, while both ears listened.
        let heardSet = heard
        let outOffsets = daw.received.filter { $0.isNoteOn && $0.frame > (heard.first ?? .max) && $0.frame < (heard.last ?? .min) }
            .map { note in heardSet.map { $0 - note.frame }.min { abs($0) < abs($1) } ?? .max }
        return (latencies, sent.count, outOffsets)
    }

    static func run(runs: Int) throws -> [BenchRow] {
        var maxima: [Double] = [], medians: [Double] = [], counts: [Int] = []
        var outMaxima: [Double] = [], outCounts: [Int] = []
        for _ in 0..<runs {
            let result = try midi(seconds: 4)
            outMaxima.append(Statistics(integers: result.outOffsets.map { abs($0) }).max)
            outCounts.append(result.outOffsets.count)
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
            BenchRow(row: "2. Control latency", measure: "fired voice → its midi_out note-on, against the frame its sound starts (\(outCounts.min() ?? 0)+ notes a run)",
                     pulsejack: "largest offset \(Int(Statistics(outMaxima).median)) frames",
                     reference: "a capture client's JACK frame of the click (goal: the same frame, 0)",
                     command: ".build/release/pulsejack-bench --only latency"),
        ]
    }
}
