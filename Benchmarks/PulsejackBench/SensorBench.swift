import BodySignals
import Foundation
import Inputs
import Realtime
import Sensors
import TestSupport

/// Row 13, body sensors: a strap's notification → its messages in the engine's ring (BlueZoo on a
/// private bus, a fake strap), and how near `--predict-beats` puts beats to a real heart's
/// (scipy's ECG recording, R-peaks by scipy) when a strap notifies once a second.
enum SensorBench {
    /// Frames from the wall clock, so that a notification's arrival maps back to the fake's clock.
    private final class WallClock: FrameClock {
        let sampleRate = 48_000
        let start = Date().timeIntervalSince1970
        func currentFrame() -> Int64 { Int64(((Date().timeIntervalSince1970 - start) * Double(sampleRate)).rounded()) }
        func frame(forTimetag timetag: UInt64) -> Int64 { currentFrame() }
    }

    /// Seconds from the fake's send to the ring, and of that the sensor thread's own handling.
    static func arrival() throws -> (total: [Double], handling: [Double]) {
        let bluez = try PrivateBlueZ()
        defer { bluez.stop() }
        let folder = try TemporaryFolder("bench-sensor")
        defer { folder.remove() }
        try PrivateBlueZ.recordedRR(end: 30, into: folder.file("rr.txt"))
        let strap = try bluez.startFake(["--adapter", "hci1", "--name", "Bench Strap", "strap", "--rr", folder.file("rr.txt")])
        var configuration = SensorInput.Configuration()
        configuration.sensors = [SensorRequest(kind: .heartRate)]
        configuration.busAddress = bluez.address
        configuration.predictBeats = true
        let input = SensorInput(configuration: configuration, clock: WallClock(), hearts: nil, log: { _ in }, say: { _ in })
        input.start()
        defer { input.stop() }
        strap.waitForNotifications(16, seconds: 40)
        usleep(200_000)
        let sent = strap.notifications.compactMap { $0["sent"] as? Double }
        let handled = input.handled.withLockedValue { $0 }
        let paired = zip(sent.suffix(handled.count), handled)
        return (paired.map { $1.pushed - $0 }, handled.map { $0.pushed - $0.received })
    }

    /// Over a recording's beats: |predicted − true| for each true beat, and how late a beat sounds
    /// when played at the notification that carries it (what a strap bridge does).
    static func prediction() throws -> (predicted: [Double], onArrival: [Double]) {
        let intervals = try PrivateBlueZ.recordedRR(end: 200)
        var beats: [Double] = [], time = 0.0
        for interval in intervals {
            time += interval
            beats.append(time)
        }
        var timeline = RRBeatTimeline(sampleRate: 48_000, predicts: true)
        var predicted: [Double] = [], onArrival: [Double] = [], index = 0, tick = 0.0
        while index < beats.count {
            tick += 1
            var rr: [UInt16] = []
            let arrival = tick + 0.02
            while index < beats.count && beats[index] <= tick {
                rr.append(UInt16((intervals[index] * 1024).rounded()))
                onArrival.append(arrival - beats[index])
                index += 1
            }
            for message in timeline.messages(for: HeartRateMeasurement(bpm: 0, contact: .detected, rrIntervals: rr),
                                             at: Int64(arrival * 48_000), performer: 0) {
                if case .heartbeat = message.event { predicted.append(Double(message.frame) / 48_000) }
            }
        }
        let judged = beats.filter { $0 > 10 && $0 < time - 2 }
        return (judged.map { beat in predicted.map { abs($0 - beat) }.min() ?? .infinity }, onArrival)
    }

    /// A Polar H10's ECG: 200 s of the recording at 130 Hz in frames of 73 samples, each arriving
    /// 30 ms plus up to 50 ms (a connection interval) after its last sample. For each R-peak scipy
    /// finds: the distance of its beat from the peak plus the least delay plus the fixed delay
    /// (1 s), and with prediction the nearest predicted beat's from the peak; and each frame's
    /// handling on the sensor thread (decoding, detecting, scheduling).
    static func ecg() throws -> (fixed: [Double], predicted: [Double], handling: [Double], missed: Int, peaks: Int) {
        let recording = try RecordedECG.load(end: 200)
        let samples = recording.samples, peaks = recording.peaks
        let rate = 48_000.0, least = 0.03, delay = 1.0
        func play(predicts: Bool, handling: inout [Double]) throws -> [Double] {
            var timeline = ECGBeatTimeline(sampleRate: Int(rate), predicts: predicts, delay: delay)
            var random = SplitMix64(seed: 130)
            var beats: [Double] = []
            for first in stride(from: 0, to: samples.count, by: 73) {
                let last = min(first + 73, samples.count) - 1
                let bytes = RecordedECG.frameBytes(samples[first...last], lastSample: last)
                let arrival = Double(last) / 130 + least + Double.random(in: 0..<0.05, using: &random)
                let began = DispatchTime.now().uptimeNanoseconds
                let frame = try PolarECGFrame(bytes)
                let messages = timeline.messages(for: frame, at: Int64(arrival * rate), performer: 0)
                handling.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
                for message in messages { if case .heartbeat = message.event { beats.append(Double(message.frame) / rate) } }
            }
            return beats
        }
        var handling: [Double] = [], unused: [Double] = []
        let fixedBeats = try play(predicts: false, handling: &handling)
        let predictedBeats = try play(predicts: true, handling: &unused)
        let judged = peaks.filter { $0 > 10 && $0 < 198 }
        let fixed = judged.map { peak in fixedBeats.map { abs($0 - (peak + least + delay)) }.min() ?? .infinity }
        let predicted = judged.map { peak in predictedBeats.map { abs($0 - (peak + least)) }.min() ?? .infinity }
        return (fixed.filter { $0 < 0.15 }, predicted, handling, fixed.filter { $0 >= 0.15 }.count, judged.count)
    }

    static func run(runs: Int) throws -> [BenchRow] {
        let (total, handling) = try arrival()
        let (predicted, onArrival) = try prediction()
        let ecg = try ecg()
        let fixed = Statistics(ecg.fixed), ecgPredicted = Statistics(ecg.predicted), frames = Statistics(ecg.handling)
        let ms = { (value: Double) in String(format: "%.1f", value * 1000) }
        let totals = Statistics(total), handlings = Statistics(handling), errors = Statistics(predicted), late = Statistics(onArrival)
        return [
            BenchRow(row: "13. Body sensors", measure: "a strap's notification (BlueZoo, private D-Bus) → its beats in the engine's ring, \(total.count) notifications",
                     pulsejack: "median \(ms(totals.median)) ms, p95 \(ms(totals.percentile(95))) ms (of which pulsejack's sensor thread, decoding to the ring: median \(Int((handlings.median * 1e6).rounded())) µs)",
                     reference: "a BLE-to-OSC bridge adds its own hop (OSC over UDP) to the same D-Bus path; a strap's radio adds 7.5–50 ms (its connection interval) not simulated here",
                     command: ".build/release/pulsejack-bench --only sensors"),
            BenchRow(row: "13. Body sensors", measure: "--predict-beats on a real heart (MIT-BIH 208, 200 s, \(predicted.count) beats, premature beats included), a strap notifying each second: distance from each true beat to the nearest predicted one",
                     pulsejack: "median \(ms(errors.median)) ms, p95 \(ms(errors.percentile(95))) ms",
                     reference: "each beat played at the notification carrying it (a bridge): median \(ms(late.median)) ms, p95 \(ms(late.percentile(95))) ms late",
                     command: ".build/release/pulsejack-bench --only sensors"),
            BenchRow(row: "13. Body sensors", measure: "--heart polar-ecg on a real ECG (MIT-BIH 208 at the H10's 130 Hz, 200 s, \(ecg.peaks) R-peaks by scipy; frames of 73 samples arriving 30–80 ms after their last): each beat's distance from its R-peak + the least delay + --ecg-delay 1",
                     pulsejack: "median \(ms(fixed.median)) ms, p95 \(ms(fixed.percentile(95))) ms, max \(ms(fixed.percentile(100))) ms; \(ecg.missed) of \(ecg.peaks) beats missed; a frame's handling on the sensor thread median \(Int((frames.median * 1e6).rounded())) µs",
                     reference: "no strap bridge sees R-peaks: a strap's RR beats (row above) are placed to within the notifications' bounds",
                     command: ".build/release/pulsejack-bench --only sensors"),
            BenchRow(row: "13. Body sensors", measure: "--heart polar-ecg --predict-beats, the same ECG: distance from each true R-peak to the nearest predicted beat",
                     pulsejack: "median \(ms(ecgPredicted.median)) ms, p95 \(ms(ecgPredicted.percentile(95))) ms",
                     reference: "a strap's RR intervals, predicted (row above): median \(ms(errors.median)) ms, p95 \(ms(errors.percentile(95))) ms",
                     command: ".build/release/pulsejack-bench --only sensors"),
        ]
    }
}
