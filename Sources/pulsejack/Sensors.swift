import ArgumentParser
import Foundation
import Sensors

struct Sensors: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the Bluetooth LE body sensors nearby: heart-rate straps and watches, Polar's ECG, the Muse headband.",
        discussion: "Discovers through BlueZ for a few seconds and prints each device offering the Heart Rate Service, Polar's measurement data or the Muse's service: address, name, signal strength and what it offers. Pair a device first if it needs it (bluetoothctl: scan on, pair ADDRESS, trust ADDRESS).")

    @Option(help: "Seconds to discover for (0.5…120).") var scan: Double = 5
    @Flag(help: "Print one JSON array.") var json = false
    @Option(name: .customLong("ble-adapter"), help: ArgumentHelp("The Bluetooth adapter to discover on (default: the first).", valueName: "NAME|ADDRESS")) var bleAdapter: String?

    func validate() throws {
        guard scan.isFinite, (0.5...120).contains(scan) else { throw ValidationError("--scan \(scan) is outside 0.5…120 s") }
    }

    func run() throws {
        let found: [SensorScan.Found]
        do { found = try SensorScan.run(seconds: scan, adapter: bleAdapter) } catch { throw fail(error) }
        if json {
            print(SensorScan.json(found))
        } else if found.isEmpty {
            print("pulsejack: no body sensors found in \(String(format: "%g", scan)) s (is the device on, near, and not connected elsewhere?)")
        } else {
            found.forEach { print($0.listing) }
        }
    }
}
