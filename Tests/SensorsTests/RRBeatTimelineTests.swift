import BodySignals
import Inputs
import Realtime
import Sensors
import XCTest

/// The RR timeline against a heart simulated here: beats at known times, a strap notifying on
/// its own one-second period with the (k/1024 s) intervals since the last notification, as the
/// Heart Rate Service sends them.
final class RRBeatTimelineTests: XCTestCase {
    private let rate = 48_000

    /// The notifications a strap makes of `intervals` (seconds): at each whole second after the
    /// first beat, the intervals of the beats since the previous notification; and the beat times.
    private func strap(_ intervals: [Double], latency: Double = 0.02) -> (notifications: [(arrival: Double, rr: [UInt16])], beats: [Double]) {
        var beats: [Double] = [], time = 0.0
        for interval in intervals {
            time += interval
            beats.append(time)
        }
        var notifications: [(Double, [UInt16])] = [], index = 0, tick = 0.0
        while index < beats.count {
            tick += 1
            var rr: [UInt16] = []
            while index < beats.count && beats[index] <= tick {
                rr.append(UInt16((intervals[index] * 1024).rounded()))
                index += 1
            }
            notifications.append((tick + latency, rr))
        }
        return (notifications, beats)
    }

    private func measurement(_ rr: [UInt16], contact: HeartRateMeasurement.Contact = .detected, bpm: Int = 70) -> HeartRateMeasurement {
        HeartRateMeasurement(bpm: bpm, contact: contact, rrIntervals: rr)
    }

    func testWithoutPredictionTheClockTakesEachNotificationsLastInterval() {
        var timeline = RRBeatTimeline(sampleRate: rate, predicts: false)
        let messages = timeline.messages(for: measurement([820, 768]), at: 96_000, performer: 2)
        XCTAssertEqual(messages, [ControlMessage(performer: 2, .rrIntervals(RRIntervals([820, 768])!)),
                                  ControlMessage(performer: 2, .tempo(bpm: 60 / (768.0 / 1024)))])
        // No intervals (below 60 BPM, or a strap without them): its BPM.
        XCTAssertEqual(timeline.messages(for: measurement([], bpm: 52), at: 144_000, performer: 0), [ControlMessage(.tempo(bpm: 52))])
        // An implausible interval (0.1 s) gives no tempo; the intervals are still recorded.
        XCTAssertEqual(timeline.messages(for: measurement([102]), at: 192_000, performer: 0), [ControlMessage(.rrIntervals(RRIntervals([102])!))])
    }

    func testContactLostRecordsTheIntervalsAndDrivesNothing() {
        for predicts in [false, true] {
            var timeline = RRBeatTimeline(sampleRate: rate, predicts: predicts)
            XCTAssertEqual(timeline.messages(for: measurement([800], contact: .lost), at: 48_000, performer: 0),
                           [ControlMessage(.rrIntervals(RRIntervals([800])!))])
        }
    }

    func testMoreIntervalsThanAMessageHoldsAreSplit() {
        var timeline = RRBeatTimeline(sampleRate: rate, predicts: false)
        let intervals = (0..<11).map { UInt16(400 + $0) }
        let recorded = timeline.messages(for: measurement(intervals), at: 0, performer: 0).compactMap { message -> [UInt16]? in
            if case .rrIntervals(let values) = message.event { return values.values }
            return nil
        }
        XCTAssertEqual(recorded, [Array(intervals.prefix(9)), Array(intervals.suffix(2))])
    }

    /// A heart beating every 0.8 s ± 60 ms (its variability spreads the beats over the strap's
    /// second, which is what places its timeline): after a few notifications the true beats have
    /// predicted ones a median under 70 ms away and none over 200 ms (a step predicted from the
    /// last three intervals errs by this heart's variability); none is scheduled twice, none
    /// before its notification arrived. Without prediction a beat sounds up to a second late.
    func testPredictedBeatsFallOnAHeartsBeats() {
        var random = SplitMix64(seed: 7)
        let (notifications, beats) = strap((0..<40).map { _ in 0.8 + Double.random(in: -0.06...0.06, using: &random) })
        var timeline = RRBeatTimeline(sampleRate: rate, predicts: true)
        var predicted: [Double] = []
        for (arrival, rr) in notifications {
            let frame = Int64(arrival * Double(rate))
            for message in timeline.messages(for: measurement(rr), at: frame, performer: 0) {
                guard case .heartbeat = message.event else { continue }
                XCTAssertGreaterThan(message.frame, frame, "a predicted beat is ahead of its notification")
                predicted.append(Double(message.frame) / Double(rate))
            }
        }
        XCTAssertEqual(predicted, predicted.sorted())
        XCTAssertEqual(Set(predicted).count, predicted.count)
        let judged = beats.filter { $0 > 8 && $0 < 30 }
        let errors = judged.map { beat in predicted.map { abs($0 - beat) }.min() ?? .infinity }.sorted()
        XCTAssertLessThan(errors[errors.count / 2], 0.07, "\(errors)")
        XCTAssertLessThan(errors.last!, 0.2, "\(errors)")
        XCTAssertEqual(predicted.filter { $0 > 8 && $0 < 30 }.count, judged.count)
    }

    /// A notification lost on the radio takes its intervals with it (the heart's timeline is a
    /// beat or two short): the timeline is placed afresh, and the beats are back on the heart's
    /// within a few notifications.
    func testALostNotificationLeavesTheBeatsOnTheHeart() {
        var random = SplitMix64(seed: 11)
        var (notifications, beats) = strap((0..<40).map { _ in 0.75 + Double.random(in: -0.06...0.06, using: &random) })
        notifications.remove(at: 10)
        var timeline = RRBeatTimeline(sampleRate: rate, predicts: true)
        var predicted: [Double] = []
        for (arrival, rr) in notifications {
            for message in timeline.messages(for: measurement(rr), at: Int64(arrival * Double(rate)), performer: 0) {
                if case .heartbeat = message.event { predicted.append(Double(message.frame) / Double(rate)) }
            }
        }
        let errors = beats.filter { $0 > 16 && $0 < 29 }.map { beat in predicted.map { abs($0 - beat) }.min() ?? .infinity }.sorted()
        XCTAssertLessThan(errors[errors.count / 2], 0.07, "\(errors)")
        XCTAssertLessThan(errors.last!, 0.2, "\(errors)")
    }
}
