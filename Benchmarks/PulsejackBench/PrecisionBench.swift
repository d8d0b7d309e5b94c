import Inputs
import Foundation
import JackPeers
import TestSupport
import Realtime
import JackBackend
import Presets

/// Row 1: onset error in frames over 10 minutes of heartbeats, against the contract's reference,
/// offline and live on a dummy jackd; beside PulSonify's 100 ms timer and a 64-frame
/// block-accurate scheduler given the same beats.
enum PrecisionBench {
    static let seconds = 600
    static let rate = 48_000

    struct Errors {
        var maxError: Int64
        var beats: Int
    }

    static func courses() -> [(label: String, changes: [(frame: Int64, bpm: Int)])] {
        [("constant 73 BPM", [(Int64(rate), 73)]),
         ("changing tempo", ReferenceBeats.wanderingTempo(sampleRate: rate, seconds: seconds, start: Int64(rate), seed: 7))]
    }

    static func compare(_ onsets: [Int64], _ reference: [Int64]) throws -> Errors {
        guard let first = onsets.first, onsets.count == reference.count else {
            throw BenchFailure("heard \(onsets.count) beats where the reference has \(reference.count)")
        }
        // Both relative to beat 0: the live capture client's frame count has its own origin.
        let errors = zip(onsets, reference).map { abs(($0 - first) - ($1 - reference[0])) }
        return Errors(maxError: errors.max() ?? 0, beats: onsets.count)
    }

    /// Offline: the engine driven period by period, onsets read from its output.
    static func offline(_ changes: [(frame: Int64, bpm: Int)]) throws -> [Int64] {
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try EngineGraph.build(preset: BenchFixtures.shipped("click"), sampleRate: rate, maxFrames: 256) { $0.sources = [ring] }
        for change in changes { ring.producer.push(ControlMessage(frame: change.frame, .tempo(bpm: Double(change.bpm)))) }
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256), right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { left.deallocate(); right.deallocate() }
        var onsets: [Int64] = []
        let end = Int64(rate * (seconds + 1))
        while engine.framePosition < end {
            let start = engine.framePosition
            engine.process(frames: 256, left: left, right: right)
            for index in 0..<256 where left[index] > 0.5 && start + Int64(index) < end { onsets.append(start + Int64(index)) }
        }
        return onsets
    }

    /// Live: a JACK client on a private dummy jackd, heard by a second client, in freewheel so
    /// ten minutes of audio pass in seconds.
    static func live(_ changes: [(frame: Int64, bpm: Int)]) throws -> [Int64] {
        let server = try PrivateJackServer(periodFrames: 256)
        defer { server.stop() }
        let client = try JackClient(name: "pulsejack")
        let ring = SPSCRing<ControlMessage>(minimumCapacity: 1024)
        let engine = try EngineGraph.build(preset: BenchFixtures.shipped("click"), sampleRate: client.sampleRate,
                                           maxFrames: client.bufferSize) { $0.sources = [ring] }
        for change in changes { ring.producer.push(ControlMessage(frame: change.frame, .tempo(bpm: Double(change.bpm)))) }
        let capture = try CaptureClient(name: "ear")
        try client.activate(engine: engine)
        try capture.connect(from: "\(client.name):out_L")
        client.setFreewheel(true)
        let target = Int64(rate * (seconds + 1)) + 48_000
        while capture.framesSeen < target { usleep(20_000) }
        client.setFreewheel(false)
        usleep(100_000)
        client.deactivate()
        capture.close()
        client.close()
        // Keep the beats of the same ten minutes as the offline run.
        return Array(capture.onsets.prefix(ReferenceBeats.frames(sampleRate: rate, changes: changes, end: Int64(rate * (seconds + 1))).count))
    }

    /// PulSonify: a timer every 100 ms fires a beat once the fire interval, rounded to 100 ms,
    /// has passed since the last one.
    static func pulsonifyTimer(_ changes: [(frame: Int64, bpm: Int)], beats: Int) -> [Int64] {
        let tick = Int64(rate / 10)
        var fired: [Int64] = []
        var time = changes[0].frame
        var lastFire = time
        fired.append(time)
        var change = 0
        while fired.count < beats {
            time += tick
            while change + 1 < changes.count && changes[change + 1].frame <= time { change += 1 }
            let intervalTicks = Int64((60_000.0 / Double(changes[change].bpm) / 100).rounded())
            if time - lastFire >= intervalTicks * tick {
                fired.append(time)
                lastFire = time
            }
        }
        return fired
    }

    /// A scheduler that can act only at block boundaries: each beat moves to the next 64-frame block.
    static func blockAccurate(_ reference: [Int64]) -> [Int64] {
        reference.map { ($0 + 63) / 64 * 64 }
    }

    static func run(runs: Int) throws -> [BenchRow] {
        var rows: [BenchRow] = []
        for course in courses() {
            let end = Int64(rate * (seconds + 1))
            let reference = ReferenceBeats.frames(sampleRate: rate, changes: course.changes, end: end)
            var offlineMax: [Double] = [], liveMax: [Double] = []
            for _ in 0..<runs {
                offlineMax.append(Double(try compare(try offline(course.changes), reference).maxError))
                liveMax.append(Double(try compare(try live(course.changes), reference).maxError))
            }
            let timer = zip(pulsonifyTimer(course.changes, beats: reference.count), reference).map { abs($0 - $1) }
            let block = zip(blockAccurate(reference), reference).map { abs($0 - $1) }
            let grid = reference.map { frame -> Int64 in
                let tick = Int64(rate / 10)
                return (frame + tick - 1) / tick * tick - frame
            }
            let timerStats = Statistics(integers: timer)
            rows.append(BenchRow(
                row: "1. Scheduling precision", measure: "\(course.label), \(reference.count) beats in 10 min, max onset error",
                pulsejack: "offline \(Int(Statistics(offlineMax).median)) frames; live (dummy jackd) \(Int(Statistics(liveMax).median)) frames",
                reference: "PulSonify's 100 ms timer: the grid alone up to \(grid.max()!) frames; with its interval rounded to 100 ms the beats drift (median \(Int(timerStats.median)), max \(Int(timerStats.max)) frames); a 64-frame block scheduler: up to \(block.max()!) frames",
                command: ".build/release/pulsejack-bench --only precision"))
        }
        return rows
    }
}
