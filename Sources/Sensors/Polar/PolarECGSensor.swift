import BodySignals
import Inputs
import Realtime

extension SensorRequest.Kind {
    /// Polar's ECG (H10), with its Heart Rate Service alongside: `polar-ecg[:ADDRESS|NAME]`.
    public static let polarECG = SensorRequest.Kind(rawValue: "polar-ecg")
}

/// A Polar H10's ECG: its R-peaks are the beats (`ECGBeatTimeline`); its heart rate gives the
/// status its BPM and skin contact.
struct PolarECGSensor: SensorKindDescriptor {
    let kind = SensorRequest.Kind.polarECG
    let role = SensorRole.heart
    let summary = "Polar ECG"
    let service = GATTNames.polarMeasurementService
    // Start ECG: 130 Hz, 14-bit (Polar's measurement data specification).
    let profile = SensorProfile(name: "Polar measurement data", notify: [GATTNames.polarControlPoint, GATTNames.polarData],
                                optionalNotify: [GATTNames.heartRateMeasurement],
                                start: [(GATTNames.polarControlPoint, [0x02, 0x00, 0x00, 0x01, 0x82, 0x00, 0x01, 0x01, 0x0E, 0x00])])
    let givesBeats = true

    func decoder(_ setup: SensorDecoderSetup) -> any SensorDecoder {
        PolarECGDecoder(ecg: ECGBeatTimeline(sampleRate: setup.sampleRate, predicts: setup.predictsBeats, delay: setup.ecgDelay))
    }

    func statusFields(_ status: SensorStatus) -> [(String, StatusValue)] {
        [("_contact", status.contactValue), ("_ecg_beats", .int(status.ecgBeats)), ("_ecg_late", .int(status.ecgLate))]
    }
}

/// Sensor thread. An H10's notifications: ECG frames (R-peaks → beats at a fixed delay, or
/// predicted), the control point's answer to the start command, and its heart rate (status only).
final class PolarECGDecoder: SensorDecoder {
    private var ecg: ECGBeatTimeline
    /// Its heart rate: the status's BPM and the skin contact an ECG without it is noise.
    private let heartRate = HeartRateDecoder(timeline: nil)

    init(ecg: ECGBeatTimeline) { self.ecg = ecg }

    func decode(_ bytes: [UInt8], characteristic: String, at frame: Int64, performer: Int, into sink: SensorSink) throws {
        switch characteristic {
        case GATTNames.heartRateMeasurement:
            try heartRate.decode(bytes, characteristic: characteristic, at: frame, performer: performer, into: sink)
        case GATTNames.polarControlPoint:
            // A refusal of the start command is said, with Polar's reason.
            guard let response = PolarControlResponse(bytes), !response.succeeded else { return }
            sink.problem("\(sink.deviceLabel ?? "the sensor") refused to start its ECG: \(response.reason)")
        case GATTNames.polarData:
            let frameOfECG = try PolarECGFrame(bytes)
            let messages = ecg.messages(for: frameOfECG, at: frame, performer: UInt8(clamping: performer))
            // The status first, as for every notification: whoever sees a beat sees the status behind it.
            let (beats, late) = (ecg.beats, ecg.late)
            sink.update {
                $0.notifications += 1
                $0.ecgBeats = beats
                $0.ecgLate = late
            }
            sink.push(messages)
            if heartRate.contact != false { sink.heardHeart() }
        default: return
        }
    }
}
