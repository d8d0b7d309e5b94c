import OSC
import CJack
import Inputs
import Foundation
import JackPeers
import TestSupport
import Engine
import JackBackend
import Presets

/// Row 2, OSC: a UDP OSC message to sound, in frames, through the engine's OSC input on a private
/// dummy jackd. Immediate messages: from the JACK frame time at sending to the onset. Timetagged
/// bundles: the onset spacing against the spacing their timetags say.
enum OSCLatencyBench {
    static func measure() throws -> (immediate: [Int64], timetagged: [Int64]) {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        let client = try JackClient(name: "pulsejack")
        var setup = try EngineGraph.setup(preset: BenchFixtures.midiClick(note: 60), sampleRate: client.sampleRate,
                                          maxFrames: client.bufferSize)
        var configuration = OSCInput.Configuration()
        configuration.port = 0
        let osc = try OSCInput(configuration: configuration, routes: OSCRoutes(voices: setup.voiceNames),
                               clock: JackFrameClock(handle: setup.handle, client: client))
        setup.sources = [osc.ring]
        let engine = RealtimeEngine(setup)
        let ear = try CaptureClient(name: "ear")
        try client.activate(engine: engine)
        try ear.connect(from: "\(client.name):out_L")
        osc.start()
        usleep(300_000)
        var sent: [Int64] = []
        for index in 0..<40 {
            sent.append(Int64(jack_time_to_frames(ear.client, jack_get_time())))
            OSCEncoder.send(OSCEncoder.message("/voice/pad/trigger"), port: osc.boundPort)
            usleep(UInt32(50_000 + index * 1_373 % 30_000))
        }
        usleep(200_000)
        let immediateOnsets = ear.onsetJackFrames
        let base = OSCEncoder.now() + (1 << 31)
        let spacings: [UInt64] = (0..<40).map { UInt64(7_000 + $0 * 977) }  // frames, irregular
        var tags: [UInt64] = []
        var offset: UInt64 = 0
        for spacing in spacings {
            offset += spacing
            // Timetag for `offset` frames after base, in NTP ticks (2⁻³² s).
            tags.append(base + (offset << 32) / 48_000)
        }
        for tag in tags {
            OSCEncoder.send(OSCEncoder.bundle(timetag: tag, [OSCEncoder.message("/voice/pad/trigger")]), port: osc.boundPort)
        }
        usleep(UInt32(Double(offset) / 48_000 * 1_000_000) + 1_000_000)
        osc.stop()
        client.deactivate()
        ear.close()
        client.close()
        let scheduled = Array(ear.onsetJackFrames.dropFirst(immediateOnsets.count))
        var latencies: [Int64] = []
        var next = 0
        for frame in sent {
            while next < immediateOnsets.count && immediateOnsets[next] < frame { next += 1 }
            if next < immediateOnsets.count { latencies.append(immediateOnsets[next] - frame) }
        }
        // Expected frame spacing from the timetags, with the same rounding the engine uses.
        let expected = zip(tags.dropFirst(), tags).map { Int64((Int128($0 - $1) * 48_000 + (1 << 31)) >> 32) }
        let heard = zip(scheduled.dropFirst(), scheduled).map { $0 - $1 }
        let errors = zip(heard, expected).map { abs($0 - $1) }
        return (latencies, scheduled.count == tags.count ? errors : [Int64.max])
    }

    static func run(runs: Int) throws -> [BenchRow] {
        var medians: [Double] = [], maxima: [Double] = [], spacingErrors: [Double] = []
        for _ in 0..<runs {
            let result = try measure()
            let stats = Statistics(integers: result.immediate)
            medians.append(stats.median)
            maxima.append(stats.max)
            spacingErrors.append(Double(result.timetagged.max() ?? .max))
        }
        return [
            BenchRow(row: "2. Control latency", measure: "OSC message without timetag (UDP, 40 a run) → sound, 256-frame period",
                     pulsejack: "median \(Int(Statistics(medians).median)), max \(Int(Statistics(maxima).median)) frames",
                     reference: "one period: 256 frames (it plays in the next period)",
                     command: ".build/release/pulsejack-bench --only osc"),
            BenchRow(row: "2. Control latency", measure: "OSC bundles timetagged 0.5 s ahead, 40 irregular spacings: onset spacing error",
                     pulsejack: "max \(Int(Statistics(spacingErrors).median)) frames",
                     reference: "the timetags' own spacing (goal: exact, 0 frames); scsynth's OffsetOut jitters 408–455 samples for 441 (sc#4596)",
                     command: ".build/release/pulsejack-bench --only osc"),
        ]
    }
}
