/// What one kind of sensor streams once connected: the characteristics to subscribe to (the
/// required ones, and those used when offered), and the commands that start the stream.
struct SensorProfile {
    var name: String
    var notify: [String]
    var optionalNotify: [String] = []
    var start: [(characteristic: String, bytes: [UInt8])] = []

    static func of(_ kind: SensorRequest.Kind) -> SensorProfile {
        switch kind {
        case .heartRate:
            SensorProfile(name: "heart rate measurement", notify: [GATTNames.heartRateMeasurement])
        case .polarECG:
            // Start ECG: 130 Hz, 14-bit (Polar's measurement data specification).
            SensorProfile(name: "Polar measurement data", notify: [GATTNames.polarControlPoint, GATTNames.polarData],
                          optionalNotify: [GATTNames.heartRateMeasurement],
                          start: [(GATTNames.polarControlPoint, [0x02, 0x00, 0x00, 0x01, 0x82, 0x00, 0x01, 0x01, 0x0E, 0x00])])
        case .muse:
            // "p21" (the default preset), then "d" (stream): length-prefixed ASCII ending in a newline.
            SensorProfile(name: "Muse EEG", notify: GATTNames.museEEG,
                          start: [(GATTNames.museControl, [0x04, 0x70, 0x32, 0x31, 0x0A]), (GATTNames.museControl, [0x02, 0x64, 0x0A])])
        }
    }
}
