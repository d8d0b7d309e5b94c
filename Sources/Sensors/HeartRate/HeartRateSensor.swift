import BodySignals
import Inputs
import Realtime

extension SensorRequest.Kind {
    /// The standard Heart Rate Service (straps and watches): `ble[:ADDRESS|NAME]`.
    public static let heartRate = SensorRequest.Kind(rawValue: "ble")
}

/// A heart-rate strap or watch: the Heart Rate Measurement's RR intervals become the tempo, or
/// predicted beats (`RRBeatTimeline`).
struct HeartRateSensor: SensorKindDescriptor {
    let kind = SensorRequest.Kind.heartRate
    let role = SensorRole.heart
    let summary = "heart rate"
    let service = GATTNames.heartRateService
    let profile = SensorProfile(name: "heart rate measurement", notify: [GATTNames.heartRateMeasurement])

    func decoder(_ setup: SensorDecoderSetup) -> any SensorDecoder {
        HeartRateDecoder(timeline: RRBeatTimeline(sampleRate: setup.sampleRate, predicts: setup.predictsBeats))
    }

    func statusFields(_ status: SensorStatus) -> [(String, StatusValue)] { [("_contact", status.contactValue)] }
}

/// Sensor thread. A Heart Rate Measurement: its RR intervals become beats or the tempo; its BPM
/// and skin contact go to the status. `drives` false: only the status (beside an ECG that gives
/// the beats).
final class HeartRateDecoder: SensorDecoder {
    private var timeline: RRBeatTimeline?
    /// What the last measurement said of skin contact (nil: the device cannot tell).
    private(set) var contact: Bool?

    init(timeline: RRBeatTimeline?) { self.timeline = timeline }

    func decode(_ bytes: [UInt8], characteristic: String, at frame: Int64, performer: Int, into sink: SensorSink) throws {
        guard characteristic == GATTNames.heartRateMeasurement else { return }
        let measurement = try HeartRateMeasurement(bytes)
        contact = measurement.contact == .unsupported ? nil : measurement.contact == .detected
        let messages = timeline?.messages(for: measurement, at: frame, performer: UInt8(clamping: performer)) ?? []
        sink.update { [contact] in
            $0.notifications += 1
            $0.bpm = measurement.bpm
            $0.contact = contact
        }
        guard timeline != nil else { return }
        sink.push(messages)
        if measurement.contact != .lost { sink.heardHeart() }
    }
}

extension SensorStatus {
    /// Skin contact as the status says it.
    var contactValue: StatusValue { .text(contact.map { $0 ? "yes" : "no" } ?? "unsupported") }
}
