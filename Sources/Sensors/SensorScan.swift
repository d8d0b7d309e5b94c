import Foundation
import Realtime

/// `pulsejack sensors`: a few seconds of discovery for devices offering the Heart Rate Service,
/// Polar's measurement data or the Muse's service. Runs on the calling thread with its own bus.
public enum SensorScan {
    public struct Found: Equatable, Sendable, Encodable {
        public var address: String
        public var name: String?
        public var rssi: Int?
        public var offers: [String]

        /// `pulsejack sensors` as text: address, name, signal strength and what it offers.
        public var listing: String {
            "\(address)  \(name ?? "(no name)")  " + (rssi.map { "\($0) dBm" } ?? "RSSI unknown") + "  " + offers.joined(separator: ", ")
        }
    }

    public static var services: [String] { SensorKinds.all.map(\.service) }

    public static func run(seconds: Double, adapter: String?, busAddress: String? = nil) throws(SensorError) -> [Found] {
        let central = try BLECentral(adapter: adapter, busAddress: busAddress)
        try central.startDiscovery(services: services)
        let deadline = MonotonicClock.seconds + seconds
        let nobody = Doorbell()  // the scan ends at its deadline alone
        while MonotonicClock.seconds < deadline { try central.pump(seconds: max(0, deadline - MonotonicClock.seconds), orRung: nobody) }
        central.stopDiscovery()
        return central.devices.filter { device in services.contains { device.uuids.contains($0) } }.map {
            Found(address: $0.address, name: $0.name, rssi: $0.rssi, offers: GATTNames.offers($0.uuids))
        }
    }

    public static func json(_ found: [Found]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(found)) ?? Data("[]".utf8), as: UTF8.self)
    }
}
