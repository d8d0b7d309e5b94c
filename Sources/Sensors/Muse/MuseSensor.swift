import BodySignals
import Inputs
import Realtime

extension SensorRequest.Kind {
    /// The Muse headband's EEG: `muse[:ADDRESS|NAME]`.
    public static let muse = SensorRequest.Kind(rawValue: "muse")
}

/// A Muse 2 or S headband: band powers from its four sensors' raw EEG, every tenth of a second,
/// as `/muse/elements/<band>_absolute` brings them.
struct MuseSensor: SensorKindDescriptor {
    let kind = SensorRequest.Kind.muse
    let role = SensorRole.eeg
    let summary = "Muse EEG"
    let service = GATTNames.museService
    // "p21" (the default preset), then "d" (stream): length-prefixed ASCII ending in a newline.
    let profile = SensorProfile(name: "Muse EEG", notify: GATTNames.museEEG,
                                start: [(GATTNames.museControl, [0x04, 0x70, 0x32, 0x31, 0x0A]), (GATTNames.museControl, [0x02, 0x64, 0x0A])])

    func decoder(_ setup: SensorDecoderSetup) -> any SensorDecoder { MuseDecoder() }

    func statusFields(_ status: SensorStatus) -> [(String, StatusValue)] {
        EEGBand.allCases.map { ("_" + $0.name + "_relative", .float(status.relativeBands[$0] ?? 0)) }
    }
}

/// Sensor thread. One sensor's 12 samples a notification; every tenth of a second the band
/// powers (a message each, and the mood model).
final class MuseDecoder: SensorDecoder {
    private var eeg = EEGBandPowers()

    func decode(_ bytes: [UInt8], characteristic: String, at frame: Int64, performer: Int, into sink: SensorSink) throws {
        guard let channel = GATTNames.museEEG.firstIndex(of: characteristic) else { return }
        let packet = try MuseEEGPacket(bytes)
        sink.update { $0.notifications += 1 }
        guard let reading = eeg.add(packet.microvolts, channel: channel) else { return }
        // The status first: whoever sees the mood change sees the band powers that changed it.
        sink.update {
            $0.bands = reading.absolute
            $0.relativeBands = reading.relative
        }
        for band in EEGBand.allCases {
            guard let value = reading.absolute[band] else { continue }
            sink.push([ControlMessage(performer: UInt8(clamping: performer), .bandPower(band, Float(value)))])
            sink.observe(band, value)
        }
    }
}
