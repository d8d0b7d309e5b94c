/// The Bluetooth LE services and characteristics pulsejack reads, as BlueZ spells their UUIDs
/// (128-bit, lower case).
public enum GATTNames {
    /// A 16-bit SIG number on the Bluetooth base UUID.
    public static func sig(_ short: UInt16) -> String {
        "0000" + String(short, radix: 16).leftPadded(to: 4) + "-0000-1000-8000-00805f9b34fb"
    }

    public static let heartRateService = sig(0x180D)
    public static let heartRateMeasurement = sig(0x2A37)
    public static let batteryService = sig(0x180F)
    public static let batteryLevel = sig(0x2A19)

    /// Polar's measurement data (PMD): its control point takes start/stop commands and answers
    /// on itself; the data characteristic streams frames (ECG on the H10).
    public static let polarMeasurementService = "fb005c80-02e7-f387-1cad-8acd2d8df0c8"
    public static let polarControlPoint = "fb005c81-02e7-f387-1cad-8acd2d8df0c8"
    public static let polarData = "fb005c82-02e7-f387-1cad-8acd2d8df0c8"

    /// The Muse 2 and S headbands: a control characteristic and one EEG characteristic per sensor.
    public static let museService = sig(0xFE8D)
    public static let museControl = "273e0001-4c4d-454d-96be-f03bac821358"
    public static let museEEG = ["273e0003-4c4d-454d-96be-f03bac821358", "273e0004-4c4d-454d-96be-f03bac821358",
                                 "273e0005-4c4d-454d-96be-f03bac821358", "273e0006-4c4d-454d-96be-f03bac821358"]

    /// What a device's advertised services offer, in words (`pulsejack sensors`).
    public static func offers(_ uuids: [String]) -> [String] {
        let known = SensorKinds.all.map { ($0.service, $0.summary) } + [(batteryService, "battery")]
        let lowered = Set(uuids.map { $0.lowercased() })
        return known.filter { lowered.contains($0.0) }.map(\.1)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
